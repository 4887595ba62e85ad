/**
 * The README, CONTRIBUTING.md, docs/ and examples/ cannot drift from the code: every fact a user relies on that they
 * state (defaults, limits, waits, node versions, what an idempotency key is made of, what uses credits and what
 * emails candidates, the operations) is read from the text and compared with the code's own constants and the
 * nodes' descriptions. A doc that states another value fails here; so does a sentence the project has retired
 * (keys derived from the execution, a capacity wait of 60 s) and wording about the project's own history.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import type { INodeProperties } from 'n8n-workflow';

import { SANDBOX_BASE_URL } from '../../credentials/RecruitingAnalysisApi.credentials';
import {
	concurrencyOption,
	quoteFields,
	SIMPLIFIED_OUTPUT_VERSION,
	waitForCompletionOptions,
} from '../../nodes/RecruitingAnalysis/actions/common/descriptions';
import { ACTION_NODE_VERSIONS } from '../../nodes/RecruitingAnalysis/actions/common/locators';
import { CAPACITY_WAIT_SECONDS } from '../../nodes/RecruitingAnalysis/engine/capacity';
import { BATCH_CHUNK_SIZE } from '../../nodes/RecruitingAnalysis/engine/types';
import { RecruitingAnalysis } from '../../nodes/RecruitingAnalysis/RecruitingAnalysis.node';
import { RecruitingAnalysisFeedTrigger } from '../../nodes/RecruitingAnalysis/RecruitingAnalysisFeedTrigger.node';
import {
	MAX_BATCH_ITEMS,
	MAX_FILE_SIZE_BYTES,
} from '../../nodes/RecruitingAnalysis/validation/rules';
import { DEFAULT_DEDUPE_CAPACITY } from '../../nodes/RecruitingAnalysis/webhook/dedupe';
import {
	DERIVED_KEY_PREFIX,
	deriveWriteKey,
} from '../../nodes/RecruitingAnalysis/writes/keyBuilder';

const root = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** Every document a user or contributor reads, by path. */
const DOCS: Record<string, string> = Object.fromEntries(
	[
		'README.md',
		'CONTRIBUTING.md',
		'examples/README.md',
		...readdirSync(join(root, 'docs'))
			.filter((f) => f.endsWith('.md'))
			.map((f) => `docs/${f}`),
	].map((path) => [path, read(path)]),
);
/** The text with line breaks (and the "> " of callouts) folded, so a sentence wrapped over lines is one line. */
const flat = (text: string) => text.replace(/\n>\s*/g, ' ').replace(/\s*\n\s*/g, ' ');

/** Every match of `pattern` in every document: where, and its first group. */
function statements(pattern: RegExp): Array<{ doc: string; value: string; text: string }> {
	const found: Array<{ doc: string; value: string; text: string }> = [];
	for (const [doc, text] of Object.entries(DOCS)) {
		for (const m of flat(text).matchAll(
			new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`),
		)) {
			found.push({ doc, value: m.slice(1).find((v) => v !== undefined) ?? '', text: m[0] });
		}
	}
	return found;
}

/** `statements`, each value as a number (thousands separators dropped). */
const numbers = (pattern: RegExp) =>
	statements(pattern).map((s) => ({ ...s, value: Number(s.value.replace(/,/g, '')) }));

function option(properties: INodeProperties[], name: string): INodeProperties {
	for (const p of properties) {
		if (p.name === name) return p;
		const nested = (p.options ?? []).filter(
			(o): o is INodeProperties => typeof o === 'object' && o !== null && 'type' in o,
		);
		if (nested.length > 0) {
			const inner = nested.find((o) => o.name === name);
			if (inner) return inner;
		}
	}
	throw new Error(`no parameter ${name}`);
}

const action = new RecruitingAnalysis().description;
const feed = new RecruitingAnalysisFeedTrigger().description;
const LATEST_VERSION = Math.max(...ACTION_NODE_VERSIONS);

describe("defaults, limits and waits stated in the docs are the code's", () => {
	it('Concurrency: every "(default N)" is the option\'s default', () => {
		const stated = numbers(/Concurrency\*?\)? \(default (\d+)\)|default Concurrency \((\d+)\)/);
		expect(stated.length).toBeGreaterThan(0);
		for (const s of stated)
			expect({
				doc: s.doc,
				text: s.text,
				value: s.value || Number(/\((\d+)\)/.exec(s.text)![1]),
			}).toEqual({ ...s, value: concurrencyOption.default });
	});

	it('Wait for Completion: off by default, Wait Timeout in seconds as the option says', () => {
		const timeout = option(waitForCompletionOptions, 'waitTimeout').default;
		const stated = numbers(/\*Wait Timeout\* (\d+) seconds/);
		expect(stated.length).toBeGreaterThan(0);
		for (const s of stated) expect(s).toEqual({ ...s, value: timeout });
		expect(option(waitForCompletionOptions, 'waitForCompletion').default).toBe(false);
		expect(
			statements(/\*Wait for Completion\* \(([^)]*)\)/).filter((s) => /by default/.test(s.value)),
		).toEqual(
			statements(/\*Wait for Completion\* \(([^)]*)\)/).filter((s) =>
				/off by default/.test(s.value),
			),
		);
	});

	it('capacity refusals: every "up to N minutes" is CAPACITY_WAIT_SECONDS, and no doc still says 60 s', () => {
		const stated = numbers(/waited\s+out for up to (\d+) minutes/);
		expect(stated.length).toBeGreaterThanOrEqual(2);
		for (const s of stated) expect(s).toEqual({ ...s, value: CAPACITY_WAIT_SECONDS / 60 });
		expect(statements(/(60 s without waiting)/)).toEqual([]);
	});

	it('batches: "per N input items", "batches of N" and "per N of them" are the chunk size (the spec\'s batch limit)', () => {
		expect(BATCH_CHUNK_SIZE).toBe(MAX_BATCH_ITEMS);
		const stated = numbers(
			/per (\d+) (?:input items|of them)|batch(?:es)? of (?:at most )?(\d+)/,
		).map((s) => ({
			...s,
			value: Number(/(\d+)/.exec(s.text)![1]),
		}));
		expect(stated.length).toBeGreaterThanOrEqual(4);
		for (const s of stated) expect(s).toEqual({ ...s, value: BATCH_CHUNK_SIZE });
	});

	it('files: "up to N MB" is the spec\'s file size limit', () => {
		const stated = numbers(/(?:PDF or DOCX|a \d+ MB file|resume)[^.]{0,40}up to (\d+) MB/);
		expect(stated.length).toBeGreaterThan(0);
		for (const s of stated) expect(s).toEqual({ ...s, value: MAX_FILE_SIZE_BYTES / 1024 / 1024 });
	});

	it('triggers: Remembered Event IDs, Max Events per Poll and Latest Events in Manual Runs defaults', () => {
		const feedOptions = feed.properties;
		const cases: Array<[RegExp, unknown]> = [
			[
				/Remembered Event IDs[^.]{0,40}?default ([\d,]+)|default ([\d,]+), option \*Remembered Event IDs\*/,
				DEFAULT_DEDUPE_CAPACITY,
			],
			[
				/\*Max Events per Poll\* \(default (\d+)\)/,
				option(feedOptions, 'maxEventsPerPoll').default,
			],
			[
				/\*Latest Events in Manual Runs\*,? default (\d+)/,
				option(feedOptions, 'manualCount').default,
			],
		];
		for (const [pattern, value] of cases) {
			const stated = statements(pattern).map((s) => ({
				...s,
				value: Number(/([\d,]+)/.exec(s.text.replace(/^\D+/, ''))![1].replace(/,/g, '')),
			}));
			expect({ pattern: pattern.source, found: stated.length > 0 }).toEqual({
				pattern: pattern.source,
				found: true,
			});
			for (const s of stated) expect(s).toEqual({ ...s, value });
		}
	});

	it('Quote Automatically: the docs say "on by default", as its default is', () => {
		expect(quoteFields('start').find((f) => f.name === 'quoteAutomatically')!.default).toBe(true);
		expect(
			statements(/\*Quote Automatically\*[^.]{0,80}? (on by default)/).length,
		).toBeGreaterThanOrEqual(2);
		expect(statements(/\*Quote Automatically\*[^.]{0,80}? (off by default)/)).toEqual([]);
	});

	it("the sandbox's default address is the credential's", () => {
		const stated = statements(
			/(http:\/\/127\.0\.0\.1:\d+)`? with the default port|listens on (http:\/\/127\.0\.0\.1:\d+)/,
		).map((s) => ({
			...s,
			value: /(http:\/\/127\.0\.0\.1:\d+)/.exec(s.text)![1],
		}));
		expect(stated.length).toBeGreaterThan(0);
		for (const s of stated) expect(s).toEqual({ ...s, value: SANDBOX_BASE_URL });
	});
});

describe('node versions', () => {
	it('"a node added today is version N" is the newest version; "Versions of the action node" lists them all', () => {
		const today = statements(/a node added today is version (\d+(?:\.\d+)?)/);
		expect(today.length).toBeGreaterThanOrEqual(2);
		for (const s of today) expect(s).toEqual({ ...s, value: String(LATEST_VERSION) });
		const listed = statements(/Versions of the action node: ([\d., and]+)/).map((s) =>
			s.value
				.split(/,| and /)
				.map((v) => Number(v.trim()))
				.filter((n) => !Number.isNaN(n) && n > 0),
		);
		expect(listed).toEqual([ACTION_NODE_VERSIONS]);
		expect(statements(/(every node you add now)/)).toEqual([]);
	});

	it('"From node version N" (the simplified items) is the version that brought them', () => {
		const stated = statements(/From node version (\d+(?:\.\d+)?)/);
		expect(stated.length).toBeGreaterThan(0);
		for (const s of stated) expect(s).toEqual({ ...s, value: String(SIMPLIFIED_OUTPUT_VERSION) });
	});

	it("every example uses the action node's newest version", () => {
		for (const file of readdirSync(join(root, 'examples')).filter((f) => f.endsWith('.json'))) {
			const wf = JSON.parse(read(`examples/${file}`)) as {
				nodes: Array<{ name: string; type: string; typeVersion: number }>;
			};
			for (const node of wf.nodes.filter((n) => n.type.endsWith('.recruitingAnalysis'))) {
				expect({ file, node: node.name, typeVersion: node.typeVersion }).toEqual({
					file,
					node: node.name,
					typeVersion: LATEST_VERSION,
				});
			}
		}
	});
});

describe('what an idempotency key is made of', () => {
	it('the stated prefix and length are what the key builder makes', () => {
		const key = deriveWriteKey({ write: 'upload', identity: ['job', 'sha256'] });
		const stated = statements(
			/Each key is `([^`]+)` followed by a SHA-256 of those facts \((\d+) characters\)/,
		);
		expect(stated).toHaveLength(1);
		expect(stated[0].value).toBe(DERIVED_KEY_PREFIX);
		expect(Number(/\((\d+) characters\)/.exec(stated[0].text)![1])).toBe(key.length);
		expect(key.startsWith(DERIVED_KEY_PREFIX)).toBe(true);
	});

	it('no doc says a key is derived from the execution (it never is: the builder takes no execution)', () => {
		expect(statements(/(derived from the execution)/i)).toEqual([]);
		expect(deriveWriteKey({ write: 'upload', identity: ['same'] })).toBe(
			deriveWriteKey({ write: 'upload', identity: ['same'] }),
		);
	});
});

/** The operations table of docs/operations.md: resource, operation, endpoints, credits, emails. */
function operationsTable(): Array<{
	resource: string;
	operation: string;
	endpoints: string;
	credits: string;
	emails: string;
}> {
	const lines = DOCS['docs/operations.md']
		.split('\n')
		.filter((l) => l.startsWith('| ') && !l.startsWith('| Resource |') && !l.startsWith('|---'));
	const start = DOCS['docs/operations.md']
		.split('\n')
		.findIndex((l) => l.startsWith('| Resource | Operation |'));
	const table = DOCS['docs/operations.md'].split('\n').slice(start + 2);
	const rows = table.slice(
		0,
		table.findIndex((l) => !l.startsWith('|')),
	);
	expect(lines.length).toBeGreaterThanOrEqual(rows.length);
	return rows.map((row) => {
		const cells = row.slice(2, -2).split(' | ');
		return {
			resource: cells[0],
			operation: cells[1].replace(/\*\*/g, '').replace(/ \((default|batch)\)/g, ''),
			endpoints: cells[2],
			credits: cells[4],
			emails: cells[5],
		};
	});
}

/** The writes the spec charges for: analysis starts (one or a batch), interviews (one, a batch, a reinterview). */
const CHARGED_ENDPOINTS =
	/`POST \/api\/v1\/(analyses|analysis-batches|interviews|interview-batches|interviews\/\{id\}\/reinterview)`/;

describe('the operations, what uses credits and what emails candidates', () => {
	const rows = operationsTable();

	it("the table lists exactly the node's operations, and only docs/operations.md has it", () => {
		const fromCode: string[] = [];
		const resources = option(action.properties, 'resource').options as Array<{
			name: string;
			value: string;
		}>;
		for (const p of action.properties.filter((p) => p.name === 'operation')) {
			const resource = resources.find((r) => p.displayOptions?.show?.resource?.includes(r.value))!;
			for (const o of p.options as Array<{ name: string }>)
				fromCode.push(`${resource.name} / ${o.name}`);
		}
		expect(rows.map((r) => `${r.resource} / ${r.operation}`).sort()).toEqual(fromCode.sort());
		const copies = Object.entries(DOCS)
			.filter(([, text]) => text.includes('| Resource | Operation |'))
			.map(([doc]) => doc);
		expect(copies).toEqual(['docs/operations.md']);
	});

	it('"Credits: yes" is exactly the operations that call a charged endpoint, and the README callout names the same', () => {
		for (const r of rows) {
			expect({ op: `${r.resource} / ${r.operation}`, credits: r.credits }).toEqual({
				op: `${r.resource} / ${r.operation}`,
				credits: CHARGED_ENDPOINTS.test(r.endpoints) ? 'yes' : 'no',
			});
		}
		const callout = flat(DOCS['README.md']).match(
			/\*\*Credits\*\* are used by ([^]*?)Quotes, uploads/,
		)![1];
		const named = [...callout.matchAll(/\*([^*]+)\*/g)].map((m) => m[1].replace('Analysis → ', ''));
		expect(named.sort()).toEqual(
			rows
				.filter((r) => r.credits === 'yes')
				.map((r) => r.operation)
				.sort(),
		);
	});

	it('"Emails candidates" is exactly the invitation writes and Resend, and the README callout names the same', () => {
		const emailing = rows
			.filter((r) => r.emails !== 'no')
			.map((r) => r.operation)
			.sort();
		expect(emailing).toEqual(['Invite', 'Invite Many', 'Reinterview', 'Resend']);
		for (const r of rows.filter((row) => row.emails !== 'no')) expect(r.resource).toBe('Interview');
		const callout = flat(DOCS['README.md']).match(
			/\*\*Emails to candidates\*\* go out from ([^]*?)\*Private Link\* sends none/,
		)![1];
		const named = [...callout.matchAll(/\*([^*]+)\*/g)]
			.map((m) => m[1])
			.filter((n) => emailing.includes(n));
		expect([...new Set(named)].sort()).toEqual(emailing);
	});

	it('the examples that invite candidates are the ones the README names, and each asks a person (a Wait form) first', () => {
		const inviting: string[] = [];
		for (const file of readdirSync(join(root, 'examples'))
			.filter((f) => f.endsWith('.json'))
			.sort()) {
			const wf = JSON.parse(read(`examples/${file}`)) as {
				nodes: Array<{ name: string; type: string; parameters: Record<string, unknown> }>;
				connections: Record<string, { main: Array<Array<{ node: string }>> }>;
			};
			const invites = wf.nodes.filter(
				(n) =>
					n.parameters.resource === 'interview' &&
					['invite', 'inviteMany', 'reinterview', 'resend'].includes(
						String(n.parameters.operation),
					),
			);
			if (invites.length === 0) continue;
			inviting.push(file);
			// Walk back from each invitation: a Wait node resumed by a form must come before it.
			const parents = (name: string) =>
				Object.entries(wf.connections)
					.filter(([, c]) => c.main.flat().some((t) => t.node === name))
					.map(([from]) => from);
			for (const invite of invites) {
				const seen = new Set<string>();
				const queue = [invite.name];
				let approved = false;
				while (queue.length > 0) {
					const name = queue.shift()!;
					if (seen.has(name)) continue;
					seen.add(name);
					const node = wf.nodes.find((n) => n.name === name)!;
					if (node.type === 'n8n-nodes-base.wait' && node.parameters.resume === 'form')
						approved = true;
					queue.push(...parents(name));
				}
				expect({ file, invite: invite.name, approvedFirst: approved }).toEqual({
					file,
					invite: invite.name,
					approvedFirst: true,
				});
			}
		}
		const named = flat(DOCS['README.md']).match(
			/\*\*Examples that email candidates\*\*: ([^]*?)\. Each stops/,
		)![1];
		expect([...named.matchAll(/`([^`]+\.json)`/g)].map((m) => m[1]).sort()).toEqual(inviting);
	});
});

describe("wording for users, not about the project's history", () => {
	it('no "this machine", no earlier session or run, no issue numbers, no commit hashes', () => {
		const history =
			/this 2-core machine|previous session|the previous code|\bissue \d+|\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b/gi;
		const found = Object.entries(DOCS).flatMap(([doc, text]) =>
			[...text.matchAll(history)].map((m) => `${doc}: ${m[0]}`),
		);
		expect(found).toEqual([]);
	});
});
