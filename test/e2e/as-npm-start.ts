/**
 * A test file's examples prepared in its real n8n as `npm start` (scripts/start.ts) leaves them, with the functions of
 * scripts/start-kit.ts: the sample resumes and applicants list in n8n's files folder, the folder example pointed
 * there, the workflows of our triggers active, each webhook trigger's production and test URLs registered with the
 * file's sandbox; and the context `npm start` prints its per-example hints from (exampleHints).
 * test/e2e/examples-from-editor.test.ts and test/e2e/examples.browser.test.ts start from it. The agent example (n8n
 * 2.x) as `npm start` leaves it: prepareAgentExample (test/e2e/agent-example-chat.test.ts).
 */
import type { ChatModelServer } from '../../scripts/chat-model-server';
import { startDemoModel } from '../../scripts/demo-model';
import { NODE_TYPES, type WorkflowJson } from '../../scripts/n8n-host';
import {
	AGENT_EXAMPLE,
	FOLDER_EXAMPLE,
	MODEL_CREDENTIAL_NAME,
	chatWebhookPath,
	hostedChatUrl,
	makeChatPublic,
	modelCredentialData,
	filesFolder,
	placeSampleFiles,
	pointFolderExample,
	registerTriggerReceivers,
	type HintContext,
} from '../../scripts/start-kit';
import type { RealN8n } from './helpers';

export interface ExamplesAsNpmStart {
	/** Per example file: its workflow id and the JSON imported. */
	imported: Record<string, { id: string; wf: WorkflowJson }>;
	hints: HintContext;
}

export async function importExamplesAsNpmStart(
	env: RealN8n,
	files: string[],
): Promise<ExamplesAsNpmStart> {
	const { n8n, sandbox } = env;
	const filesDir = filesFolder(env.userFolder);
	const resumesDir = placeSampleFiles(filesDir);
	const imported: ExamplesAsNpmStart['imported'] = {};
	for (const file of files) {
		imported[file] = await env.importExample(
			file,
			file === FOLDER_EXAMPLE ? (wf) => pointFolderExample(wf, filesDir) : undefined,
		);
	}
	for (const { id, wf } of Object.values(imported)) {
		const triggers = wf.nodes.filter(
			(node) => node.type === NODE_TYPES.trigger || node.type === NODE_TYPES.feed,
		);
		if (triggers.length === 0) continue;
		await n8n.activateWorkflow(id);
		for (const trigger of triggers) {
			if (typeof trigger.webhookId !== 'string') continue; // the feed trigger polls
			await n8n.waitForWebhook(`${trigger.webhookId}/webhook`, 30_000, 'POST');
			await registerTriggerReceivers(sandbox, trigger, {
				webhookBase: env.webhookBaseUrl,
				editorBase: n8n.baseUrl,
			});
		}
	}
	return {
		imported,
		hints: {
			n8nBaseUrl: n8n.baseUrl,
			resumesDir,
			sandbox: { baseUrl: sandbox.baseUrl, workspaceId: sandbox.seed.workspaceId },
			names: Object.fromEntries(Object.entries(imported).map(([file, i]) => [file, i.wf.name])),
		},
	};
}

/** The agent example as `npm start` leaves it: its model credential on the demo model, its chat public, active. */
export interface AgentExampleAsNpmStart {
	id: string;
	wf: WorkflowJson;
	chatUrl: string;
	demoModel: ChatModelServer;
}

export async function prepareAgentExample(env: RealN8n): Promise<AgentExampleAsNpmStart> {
	const demoModel = await startDemoModel();
	try {
		const model = await env.n8n.createCredential({
			name: MODEL_CREDENTIAL_NAME,
			type: 'openAiApi',
			data: modelCredentialData(demoModel.baseUrl),
		});
		const { id, wf } = await env.importExample(AGENT_EXAMPLE, (example) => {
			makeChatPublic(example);
			for (const node of example.nodes)
				if (node.credentials?.openAiApi) node.credentials = { openAiApi: model };
		});
		await env.n8n.activateWorkflow(id);
		await env.n8n.waitForWebhook(chatWebhookPath(wf), 30_000, 'GET');
		return { id, wf, chatUrl: hostedChatUrl(env.webhookBaseUrl, wf), demoModel };
	} catch (error) {
		await demoModel.close();
		throw error;
	}
}
