/**
 * The README, CONTRIBUTING.md, docs/ and examples/ cannot drift from the code: every fact a user relies on that they
 * state (defaults, limits, waits, node versions, what an idempotency key is made of, what uses credits and what
 * emails candidates, the operations) is read from the text and compared with the code's own constants and the
 * nodes' descriptions. A doc that states another value fails here; so does a sentence the project has retired
 * (keys derived from the execution, a capacity wait of 60 s) and wording about the project's own history.
 * What uses credits and what emails candidates is read from the node's description (the operations that offer a
 * Spending Limit or a quote fingerprint, a Delivery choice, a candidate's email) and from openapi/openapi.yaml (the
 * writes that require a quote fingerprint, the writes that email), never from a list kept here.
 * Every check is a function of the documents' text: the last block feeds each one a deliberately wrong document and
 * asserts that it fails, so no check here can pass whatever the docs say.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import type { INodeProperties } from 'n8n-workflow';
import { parse } from 'yaml';

import { SANDBOX_BASE_URL } from '../../credentials/RecruitingAnalysisApi.credentials';
import {
	concurrencyOption,
	quoteFields,
	waitForCompletionOptions,
	ACTION_NODE_VERSION,
} from '../../nodes/RecruitingAnalysis/actions/common/descriptions';
import {
	BATCH_CHUNK_SIZE,
	CAPACITY_WAIT_SECONDS,
} from '../../nodes/RecruitingAnalysis/engine/capacity';
import { OPENAPI_FILE } from '../helpers/contract';
import { RecruitingAnalysis } from '../../nodes/RecruitingAnalysis/RecruitingAnalysis.node';
import { RecruitingAnalysisFeedTrigger } from '../../nodes/RecruitingAnalysis/RecruitingAnalysisFeedTrigger.node';
import { MAX_BATCH_ITEMS, MAX_FILE_SIZE_BYTES } from '../../nodes/RecruitingAnalysis/validation';
import { DEFAULT_DEDUPE_CAPACITY } from '../../nodes/RecruitingAnalysis/webhook/dedupe';
import {
	DERIVED_KEY_PREFIX,
	derivedIdempotencyKey,
} from '../../nodes/RecruitingAnalysis/writes/identity';

const root = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** Every document a user or contributor reads, by path. */
const REAL_DOCS: Record<string, string> = Object.fromEntries(
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

/** The example workflows, by file name, as JSON text. */
const REAL_EXAMPLES: Record<string, string> = Object.fromEntries(
	readdirSync(join(root, 'examples'))
		.filter((f) => f.endsWith('.json'))
		.map((f) => [f, read(`examples/${f}`)]),
);

/** What the checks read: the real documents, or a deliberately wrong copy in the tests of the checks. */
let DOCS: Record<string, string> = REAL_DOCS;
let EXAMPLES: Record<string, string> = REAL_EXAMPLES;

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

/** Every check by name: a jest test here, and called again on wrong documents by the tests of the checks below. */
const CHECKS = new Map<string, () => void>();
function check(name: string, fn: () => void): void {
	CHECKS.set(name, fn);
	it(name, () => expect(fn).not.toThrow());
}

const action = new RecruitingAnalysis().description;
const feed = new RecruitingAnalysisFeedTrigger().description;
const LATEST_VERSION = ACTION_NODE_VERSION;

describe("defaults, limits and waits stated in the docs are the code's", () => {
	check('Concurrency: every "(default N)" is the option\'s default', () => {
		const stated = numbers(/Concurrency\*?\)? \(default (\d+)\)|default Concurrency \((\d+)\)/);
		expect(stated.length).toBeGreaterThan(0);
		for (const s of stated)
			expect({
				doc: s.doc,
				text: s.text,
				value: s.value || Number(/\((\d+)\)/.exec(s.text)![1]),
			}).toEqual({ ...s, value: concurrencyOption.default });
	});

	check('Wait for Completion: off by default, Wait Timeout in seconds as the option says', () => {
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

	check(
		'capacity refusals: every "up to N minutes" is CAPACITY_WAIT_SECONDS, and no doc still says 60 s',
		() => {
			const stated = numbers(/waited\s+out for up to (\d+) minutes/);
			expect(stated.length).toBeGreaterThanOrEqual(2);
			for (const s of stated) expect(s).toEqual({ ...s, value: CAPACITY_WAIT_SECONDS / 60 });
			expect(statements(/(60 s without waiting)/)).toEqual([]);
		},
	);

	check(
		'batches: "per N input items", "batches of N" and "per N of them" are the chunk size (the spec\'s batch limit)',
		() => {
			expect(BATCH_CHUNK_SIZE).toBe(MAX_BATCH_ITEMS);
			const stated = numbers(
				/per (\d+) (?:input items|of them)|batch(?:es)? of (?:at most )?(\d+)/,
			).map((s) => ({
				...s,
				value: Number(/(\d+)/.exec(s.text)![1]),
			}));
			expect(stated.length).toBeGreaterThanOrEqual(4);
			for (const s of stated) expect(s).toEqual({ ...s, value: BATCH_CHUNK_SIZE });
		},
	);

	check('files: "up to N MB" is the spec\'s file size limit', () => {
		const stated = numbers(/(?:PDF or DOCX|a \d+ MB file|resume)[^.]{0,40}up to (\d+) MB/);
		expect(stated.length).toBeGreaterThan(0);
		for (const s of stated) expect(s).toEqual({ ...s, value: MAX_FILE_SIZE_BYTES / 1024 / 1024 });
	});

	check(
		'triggers: Remembered Event IDs, Max Events per Poll and Latest Events in Manual Runs defaults',
		() => {
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
		},
	);

	check('Quote Automatically: the docs say "on by default", as its default is', () => {
		expect(quoteFields('start').find((f) => f.name === 'quoteAutomatically')!.default).toBe(true);
		expect(
			statements(/\*Quote Automatically\*[^.]{0,80}? (on by default)/).length,
		).toBeGreaterThanOrEqual(2);
		expect(statements(/\*Quote Automatically\*[^.]{0,80}? (off by default)/)).toEqual([]);
	});

	check("the sandbox's default address is the credential's", () => {
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
	check(
		'"a node added today is version N" is the newest version; "Versions of the action node" lists them all',
		() => {
			const today = statements(/a node added today is version (\d+(?:\.\d+)?)/);
			expect(today.length).toBeGreaterThanOrEqual(2);
			for (const s of today) expect(s).toEqual({ ...s, value: String(LATEST_VERSION) });
			const listed = statements(/Versions of the action node: ([\d., and]+)/).map((s) =>
				s.value
					.split(/,| and /)
					.map((v) => Number(v.trim()))
					.filter((n) => !Number.isNaN(n) && n > 0),
			);
			expect(listed).toEqual([[ACTION_NODE_VERSION]]);
			expect(statements(/(every node you add now)/)).toEqual([]);
		},
	);

	check("every example uses the action node's newest version", () => {
		for (const file of Object.keys(EXAMPLES)) {
			const wf = JSON.parse(EXAMPLES[file]) as {
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
	check('the stated prefix and length are what the key builder makes', () => {
		const key = derivedIdempotencyKey({ write: 'upload', identity: ['job', 'sha256'] });
		const stated = statements(
			/Each key is `([^`]+)` followed by a SHA-256 of those facts \((\d+) characters\)/,
		);
		expect(stated).toHaveLength(1);
		expect(stated[0].value).toBe(DERIVED_KEY_PREFIX);
		expect(Number(/\((\d+) characters\)/.exec(stated[0].text)![1])).toBe(key.length);
		expect(key.startsWith(DERIVED_KEY_PREFIX)).toBe(true);
	});

	check(
		'no doc says a key is derived from the execution (it never is: the builder takes no execution)',
		() => {
			expect(statements(/(derived from the execution)/i)).toEqual([]);
			expect(derivedIdempotencyKey({ write: 'upload', identity: ['same'] })).toBe(
				derivedIdempotencyKey({ write: 'upload', identity: ['same'] }),
			);
		},
	);
});

/** The operations table of docs/operations.md: resource, operation, endpoints, credits, emails. */
function operationsTable(): Array<{
	resource: string;
	operation: string;
	endpoints: string;
	credits: string;
	emails: string;
}> {
	const all = DOCS['docs/operations.md'].split('\n');
	const table = all.slice(all.findIndex((l) => l.startsWith('| Resource | Operation |')) + 2);
	const rows = table.slice(
		0,
		table.findIndex((l) => !l.startsWith('|')),
	);
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

/** The node's operations as its description offers them: resource and operation, display names and values. */
function nodeOperations(): Array<{
	label: string;
	resource: string;
	operation: string;
	name: string;
	description: string;
}> {
	const resources = option(action.properties, 'resource').options as Array<{
		name: string;
		value: string;
	}>;
	return action.properties
		.filter((p) => p.name === 'operation')
		.flatMap((p) => {
			const resource = resources.find((r) => p.displayOptions?.show?.resource?.includes(r.value))!;
			return (p.options as Array<{ name: string; value: string; description?: string }>).map(
				(o) => ({
					label: `${resource.name} / ${o.name}`,
					resource: resource.value,
					operation: o.value,
					name: o.name,
					description: o.description ?? '',
				}),
			);
		});
}

/** Every parameter the node shows for resource/operation (top level and inside its option collections). */
function parametersOf(resource: string, operation: string): INodeProperties[] {
	return action.properties
		.filter(
			(p) =>
				p.displayOptions?.show?.resource?.includes(resource) &&
				p.displayOptions?.show?.operation?.includes(operation),
		)
		.flatMap((p) => [
			p,
			...((p.options ?? []) as unknown[]).filter(
				(o): o is INodeProperties => typeof o === 'object' && o !== null && 'type' in o,
			),
		]);
}

/**
 * What the node's own description says an operation does with money and mail: it charges when it offers a
 * Spending Limit or a quote fingerprint (the writes the spec charges at a quoted price); it emails when it is a
 * charged write to a candidate's email (by email unless its Delivery choice says otherwise), or when its panel
 * says running it emails the candidate (its email notice).
 */
function nodeSays(resource: string, operation: string, _description?: string) {
	const params = parametersOf(resource, operation);
	const has = (name: string) => params.some((p) => p.name === name);
	const charged = has('spendingLimit') || has('quoteFingerprint');
	const delivery = params.find((p) => p.name === 'delivery');
	const offersEmail = ((delivery?.options ?? []) as Array<{ value?: unknown }>).some(
		(o) => o.value === 'email',
	);
	const emails: 'no' | 'email' | 'email (Delivery: Email)' =
		charged && has('candidateEmail')
			? delivery
				? offersEmail
					? 'email (Delivery: Email)'
					: 'no'
				: 'email'
			: has('emailNotice')
				? 'email'
				: 'no';
	return { charged, emails };
}

/** The contract (openapi/openapi.yaml, the spec as this project describes it): which writes charge and which email. */
function specWrites(): { charged: string[]; emailing: string[] } {
	const doc = parse(readFileSync(OPENAPI_FILE, 'utf8')) as {
		paths: Record<
			string,
			Record<string, { summary?: string; description?: string; requestBody?: unknown }>
		>;
		components: { schemas: Record<string, unknown> };
	};
	const resolve = (node: unknown, seen = new Set<unknown>()): unknown[] => {
		if (typeof node !== 'object' || node === null || seen.has(node)) return [];
		seen.add(node);
		const ref = (node as { $ref?: string }).$ref;
		const here = ref ? [doc.components.schemas[ref.replace('#/components/schemas/', '')]] : [node];
		return [
			...here,
			...here.flatMap((n) =>
				Object.values(n as object).flatMap((v) => (typeof v === 'object' ? resolve(v, seen) : [])),
			),
		];
	};
	const charged: string[] = [];
	const emailing: string[] = [];
	for (const [path, ops] of Object.entries(doc.paths)) {
		const post = ops.post;
		if (!post) continue;
		const schemas = resolve(post.requestBody) as Array<{
			required?: string[];
			properties?: Record<string, unknown>;
		}>;
		const isCharged = schemas.some(
			(n) => Array.isArray(n?.required) && n.required.includes('quoteFingerprint'),
		);
		const sendsEmail = schemas.some((n) => n?.properties && 'sendEmail' in n.properties);
		const endpoint = `POST ${path}`;
		if (isCharged) charged.push(endpoint);
		if ((isCharged && sendsEmail) || /queues another email/i.test(post.description ?? ''))
			emailing.push(endpoint);
	}
	return { charged, emailing };
}

/** The writes of a table row's endpoint column, as `POST /api/v1/...`. */
const endpointsIn = (cell: string) => [...cell.matchAll(/`(POST [^`]+)`/g)].map((m) => m[1]);

describe('the operations, what uses credits and what emails candidates', () => {
	check("the table lists exactly the node's operations, and only docs/operations.md has it", () => {
		const rows = operationsTable();
		expect(rows.map((r) => `${r.resource} / ${r.operation}`).sort()).toEqual(
			nodeOperations()
				.map((o) => o.label)
				.sort(),
		);
		const copies = Object.entries(DOCS)
			.filter(([, text]) => text.includes('| Resource | Operation |'))
			.map(([doc]) => doc);
		expect(copies).toEqual(['docs/operations.md']);
	});

	check(
		'"Credits" is yes exactly for the operations the node charges, each calling a write the spec charges',
		() => {
			const spec = specWrites();
			expect(spec.charged.length).toBeGreaterThanOrEqual(5);
			const ops = nodeOperations();
			expect(
				ops.filter((o) => nodeSays(o.resource, o.operation, o.description).charged).length,
			).toBeGreaterThan(0);
			for (const r of operationsTable()) {
				const op = ops.find((o) => o.label === `${r.resource} / ${r.operation}`)!;
				const { charged } = nodeSays(op.resource, op.operation, op.description);
				expect({
					op: op.label,
					credits: r.credits,
					callsAChargedWrite: endpointsIn(r.endpoints).some((e) => spec.charged.includes(e)),
				}).toEqual({
					op: op.label,
					credits: charged ? 'yes' : 'no',
					callsAChargedWrite: charged,
				});
			}
		},
	);

	check('the README callout on credits names exactly the operations the node charges', () => {
		const callout = flat(DOCS['README.md']).match(
			/\*\*Credits\*\* are used by ([^]*?)Quotes, uploads/,
		)![1];
		const named = [...callout.matchAll(/\*([^*]+)\*/g)].map((m) => m[1].replace(/^.* → /, ''));
		const charged = nodeOperations()
			.filter((o) => nodeSays(o.resource, o.operation, o.description).charged)
			.map((o) => o.name);
		expect(named.sort()).toEqual(charged.sort());
	});

	check(
		'"Emails candidates" is what the node says each operation does, each calling a write the spec says emails',
		() => {
			const spec = specWrites();
			expect(spec.emailing.length).toBeGreaterThanOrEqual(3);
			const ops = nodeOperations();
			expect(
				ops.filter((o) => nodeSays(o.resource, o.operation, o.description).emails !== 'no').length,
			).toBeGreaterThan(0);
			for (const r of operationsTable()) {
				const op = ops.find((o) => o.label === `${r.resource} / ${r.operation}`)!;
				const { emails } = nodeSays(op.resource, op.operation, op.description);
				expect({
					op: op.label,
					emails: r.emails,
					callsAnEmailingWrite: endpointsIn(r.endpoints).some((e) => spec.emailing.includes(e)),
				}).toEqual({
					op: op.label,
					emails,
					callsAnEmailingWrite: emails !== 'no',
				});
			}
		},
	);

	check(
		'the README callout on emails names exactly the operations the node says email candidates',
		() => {
			const emailing = nodeOperations()
				.filter((o) => nodeSays(o.resource, o.operation, o.description).emails !== 'no')
				.map((o) => o.name);
			const callout = flat(DOCS['README.md']).match(
				/\*\*Emails to candidates\*\* go out from ([^]*?)\*Private Link\* sends none/,
			)![1];
			const operationNames = new Set(nodeOperations().map((o) => o.name));
			const named = [...callout.matchAll(/\*([^*]+)\*/g)]
				.map((m) => m[1])
				.filter((n) => operationNames.has(n));
			expect([...new Set(named)].sort()).toEqual([...new Set(emailing)].sort());
		},
	);

	check(
		'the examples that invite candidates are the ones the README names, and each asks a person (a Wait form) first',
		() => {
			const inviting: string[] = [];
			for (const file of Object.keys(EXAMPLES).sort()) {
				const wf = JSON.parse(EXAMPLES[file]) as {
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
		},
	);
});

describe("wording for users, not about the project's history", () => {
	check('no "this machine", no earlier session or run, no issue numbers, no commit hashes', () => {
		const history =
			/this 2-core machine|previous session|the previous code|\bissue \d+|\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b/gi;
		const found = Object.entries(DOCS).flatMap(([doc, text]) =>
			[...text.matchAll(history)].map((m) => `${doc}: ${m[0]}`),
		);
		expect(found).toEqual([]);
	});
});

/**
 * The tests of the checks: each check, fed one deliberately wrong document (one stated fact changed), must fail.
 * Each change must itself apply (the text it replaces is there), so a check that stops reading a fact fails here.
 */
const WRONG: Array<[check: string, file: string, from: string | RegExp, to: string]> = [
	[
		'Concurrency: every "(default N)" is the option\'s default',
		'docs/operations.md',
		'*Options > Concurrency* (default 20)',
		'*Options > Concurrency* (default 21)',
	],
	[
		'Wait for Completion: off by default, Wait Timeout in seconds as the option says',
		'docs/operations.md',
		'*Wait Timeout* 300 seconds',
		'*Wait Timeout* 301 seconds',
	],
	[
		'capacity refusals: every "up to N minutes" is CAPACITY_WAIT_SECONDS, and no doc still says 60 s',
		'docs/idempotency.md',
		'waited out for up to 5 minutes',
		'waited out for up to 6 minutes',
	],
	[
		'batches: "per N input items", "batches of N" and "per N of them" are the chunk size (the spec\'s batch limit)',
		'README.md',
		'(batches of 20, always waits)',
		'(batches of 25, always waits)',
	],
	[
		'files: "up to N MB" is the spec\'s file size limit',
		'README.md',
		'(PDF or DOCX, up to 10 MB each)',
		'(PDF or DOCX, up to 12 MB each)',
	],
	[
		'triggers: Remembered Event IDs, Max Events per Poll and Latest Events in Manual Runs defaults',
		'docs/triggers.md',
		'(default 1,000, option *Remembered Event IDs*)',
		'(default 1,500, option *Remembered Event IDs*)',
	],
	[
		'Quote Automatically: the docs say "on by default", as its default is',
		'README.md',
		/(\*Quote Automatically\*[^.]{0,80}?) on by default/,
		'$1 off by default',
	],
	[
		"the sandbox's default address is the credential's",
		'CONTRIBUTING.md',
		'`http://127.0.0.1:4010` with the default port',
		'`http://127.0.0.1:4011` with the default port',
	],
	[
		'"a node added today is version N" is the newest version; "Versions of the action node" lists them all',
		'docs/compatibility.md',
		'a node added today is version 1',
		'a node added today is version 3',
	],
	[
		"every example uses the action node's newest version",
		'examples/analyze-one-resume.json',
		/("type": "n8n-nodes-recruiting-analysis\.recruitingAnalysis",\s*"typeVersion": )\d+(\.\d+)?/,
		'$17',
	],
	[
		'the stated prefix and length are what the key builder makes',
		'docs/idempotency.md',
		'of those facts (71 characters)',
		'of those facts (64 characters)',
	],
	[
		'no doc says a key is derived from the execution (it never is: the builder takes no execution)',
		'README.md',
		'> **What costs credits',
		'> Keys are derived from the execution.\n\n> **What costs credits',
	],
	[
		"the table lists exactly the node's operations, and only docs/operations.md has it",
		'docs/operations.md',
		/\| Job Description \| Get \|[^\n]*\n/,
		'',
	],
	[
		'"Credits" is yes exactly for the operations the node charges, each calling a write the spec charges',
		'docs/operations.md',
		/(\| Analysis \| Get Quote \|[^\n]*)\| no \| no \|/,
		'$1| yes | no |',
	],
	[
		'the README callout on credits names exactly the operations the node charges',
		'README.md',
		'*Start Many*)',
		'Start Many)',
	],
	[
		'"Emails candidates" is what the node says each operation does, each calling a write the spec says emails',
		'docs/operations.md',
		/(\| Interview \| Resend \|[^\n]*)\| no \| email \|/,
		'$1| no | no |',
	],
	[
		'the README callout on emails names exactly the operations the node says email candidates',
		'README.md',
		'from *Resend* (another email',
		'from Resend (another email',
	],
	[
		'the examples that invite candidates are the ones the README names, and each asks a person (a Wait form) first',
		'README.md',
		'`ats-application-to-interview.json`. Each stops',
		'`ats-application.json`. Each stops',
	],
	[
		'no "this machine", no earlier session or run, no issue numbers, no commit hashes',
		'docs/operations.md',
		'| Resource | Operation |',
		'Since issue 12:\n\n| Resource | Operation |',
	],
];

describe('each check has teeth: fed a deliberately wrong document, it fails', () => {
	it('every check above has a wrong document below', () => {
		expect([...CHECKS.keys()].sort()).toEqual(WRONG.map(([name]) => name).sort());
	});

	it.each(WRONG)('%s', (name, file, from, to) => {
		const isExample = file.startsWith('examples/') && file.endsWith('.json');
		const original = isExample ? REAL_EXAMPLES[file.slice('examples/'.length)] : REAL_DOCS[file];
		const wrong = original.replace(from, to);
		expect(wrong).not.toBe(original);
		const run = CHECKS.get(name)!;
		if (isExample) EXAMPLES = { ...REAL_EXAMPLES, [file.slice('examples/'.length)]: wrong };
		else DOCS = { ...REAL_DOCS, [file]: wrong };
		try {
			expect(run).toThrow();
		} finally {
			DOCS = REAL_DOCS;
			EXAMPLES = REAL_EXAMPLES;
		}
		// The same check passes on the real documents.
		expect(run).not.toThrow();
	});
});
