/**
 * Completes an interview in the local sandbox, as a candidate who takes it would, so that the sandbox publishes
 * `interview.result_ready` (what the interview-result-decision example listens for). `npm start` prints this
 * command with its sandbox's address and workspace:
 *
 *     npx tsx scripts/complete-interview.ts <sandbox base URL> <workspace id> [interview id]
 *
 * Without an interview id it takes the newest interview the sandbox emailed an invitation for (its mail sink).
 * It sends the sandbox's interview controls in order (sandbox/README.md, "Control endpoints"):
 * `interview.started` (once the interview's preparation is ready), `interview.completed`,
 * `interview.result_ready`.
 */
import { delay } from './n8n-host';
import { SandboxControl } from './sandbox-process';

const STEPS = ['interview.started', 'interview.completed', 'interview.result_ready'];

/** The newest interview the sandbox emailed an invitation for, if any. */
export async function newestInvitedInterview(
	control: SandboxControl,
	workspaceId: string,
): Promise<string | undefined> {
	const { items } = await control.call<{ items: Array<{ interviewId: string; sentAt: string }> }>(
		'GET',
		`/_sandbox/workspaces/${encodeURIComponent(workspaceId)}/mail`,
	);
	return [...items].sort((a, b) => a.sentAt.localeCompare(b.sentAt)).at(-1)?.interviewId;
}

/** Walks one interview to `interview.result_ready`; waits up to `waitMs` for its preparation to be ready. */
export async function completeInterview(
	control: SandboxControl,
	interviewId: string,
	waitMs = 15_000,
): Promise<void> {
	for (const step of STEPS) {
		const deadline = Date.now() + waitMs;
		for (;;) {
			try {
				await control.interviewEvent(interviewId, step);
				break;
			} catch (error) {
				// Only the first step waits: a new invitation's preparation becomes ready a moment after it is sent.
				const preparing = step === STEPS[0] && /preparation queued/.test((error as Error).message);
				if (!preparing || Date.now() > deadline) throw error;
				await delay(300);
			}
		}
	}
}

async function main(): Promise<void> {
	const [baseUrl, workspaceId, given] = process.argv.slice(2);
	if (!baseUrl || !workspaceId) {
		process.stderr.write(
			'usage: npx tsx scripts/complete-interview.ts <sandbox base URL> <workspace id> [interview id]\n',
		);
		process.exit(2);
	}
	const control = new SandboxControl(baseUrl.replace(/\/+$/, ''));
	const interviewId = given ?? (await newestInvitedInterview(control, workspaceId));
	if (!interviewId) {
		process.stderr.write(
			'no interview yet: approve an invitation first (answer "Yes, invite them" in an example\'s approval form)\n',
		);
		process.exit(1);
	}
	await completeInterview(control, interviewId);
	process.stdout.write(
		`interview ${interviewId} completed; the sandbox now sends interview.result_ready\n`,
	);
}

if (require.main === module) {
	main().catch((error: unknown) => {
		process.stderr.write(`${(error as Error).message}\n`);
		process.exit(1);
	});
}
