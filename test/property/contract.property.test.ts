/**
 * Property-based contract tests (fast-check) over requests generated from openapi/openapi.yaml, for every API
 * operation of the document:
 *  - valid requests (path, query, Idempotency-Key and body drawn from the schemas): never a 5xx, every answer
 *    follows the document, and none is refused as invalid input (a 400 is allowed only for what a schema cannot
 *    say: an unknown cursor, both-or-neither filters, the order of two dates, unique item keys);
 *  - the same requests with one constraint violated at a time (a required field removed, a type, a length in
 *    code points, a pattern, an enum, a bound, an unknown field of a closed body, an item count): refused with
 *    400, the answer follows the document, and nothing is created (the workspace's counters).
 * Bounded: a fixed seed and a few runs per operation, so the whole file stays well under a minute.
 */
import fc from 'fast-check';
import {
	formatProblems,
	listOperations,
	loadDocument,
	validateResponse,
	type OperationInfo,
} from '../helpers/contract';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox';
import { created } from '../sandbox/setup';
import { deref, valueOf, violationsOf } from './schema-arbitraries';

/** A parsed YAML node, typed as JSON.parse types its result. */
type Json = ReturnType<typeof JSON.parse>;

const SEED = 20261123;
const VALID_RUNS = 12;
const VIOLATION_SAMPLES = 2;

let sb: TestSandbox;
const tally = { valid: 0, violations: 0 };
beforeAll(async () => {
	sb = await startTestSandbox();
});
afterAll(async () => {
	console.log(
		`property contract tests: ${tally.valid} valid requests, ${tally.violations} single-constraint violations`,
	);
	await sb?.close();
});

interface GeneratedRequest {
	path: Record<string, string>;
	query: Record<string, Json>;
	headers: Record<string, string>;
	body?: Json;
}

interface Param {
	name: string;
	in: 'path' | 'query' | 'header';
	required?: boolean;
	schema: Json;
}

const paramsOf = (op: OperationInfo): Param[] => {
	const item = loadDocument().paths[op.path];
	return [...(item.parameters ?? []), ...(op.operation.parameters ?? [])].map(deref) as Param[];
};
const bodySchemaOf = (op: OperationInfo): Json | undefined =>
	op.operation.requestBody?.content?.['application/json']?.schema;

function requestArbitrary(op: OperationInfo): fc.Arbitrary<GeneratedRequest> {
	const params = paramsOf(op);
	const pick = (where: Param['in']) => {
		const model: Record<string, fc.Arbitrary<Json>> = {};
		for (const p of params.filter((x) => x.in === where)) model[p.name] = valueOf(p.schema);
		const required = params
			.filter((x) => x.in === where && (x.required || where === 'path'))
			.map((x) => x.name);
		return fc.record(model, { requiredKeys: required });
	};
	const body = bodySchemaOf(op);
	return fc.record({
		path: pick('path') as fc.Arbitrary<Record<string, string>>,
		query: pick('query'),
		headers: pick('header') as fc.Arbitrary<Record<string, string>>,
		body: body ? valueOf(body) : fc.constant(undefined),
	});
}

function urlOf(op: OperationInfo, req: GeneratedRequest): string {
	const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
		encodeURIComponent(String(req.path[name])),
	);
	const query = new URLSearchParams();
	for (const [k, v] of Object.entries(req.query)) if (v !== undefined) query.append(k, String(v));
	const qs = query.toString();
	return `${path}${qs ? `?${qs}` : ''}`;
}

async function send(op: OperationInfo, req: GeneratedRequest) {
	const headers: Record<string, string> = {
		authorization: `Bearer ${sb.seed.apiKey}`,
		...req.headers,
	};
	if (req.body !== undefined) headers['content-type'] = 'application/json';
	const res = await fetch(`${sb.baseUrl}${urlOf(op, req)}`, {
		method: op.method,
		headers,
		body: req.body === undefined ? undefined : JSON.stringify(req.body),
	});
	const text = await res.text();
	let body: Json = null;
	try {
		body = text ? JSON.parse(text) : null;
	} catch {
		body = text;
	}
	const problems = validateResponse({
		method: op.method,
		route: op.path,
		status: res.status,
		headers: Object.fromEntries(res.headers),
		body,
	});
	return { status: res.status, body, problems };
}

/** 400s a schema cannot express: an unknown cursor, both-or-neither filters, the order of dates, unique keys. */
const SEMANTIC_RULES = new Set([
	'both_or_neither',
	'after_createdAfter',
	'unique',
	'max_bytes_262144',
]);
const semanticRefusal = (body: Json) =>
	body?.error?.reason === 'INVALID_CURSOR' ||
	(body?.error?.reason === 'VALIDATION_FAILED' &&
		(body.error.details ?? []).every((d: { rule: string }) => SEMANTIC_RULES.has(d.rule)));

/** Every single-constraint violation of a valid request (its parameters, its header, its body). */
function violationsOfRequest(
	op: OperationInfo,
	req: GeneratedRequest,
): { rule: string; req: GeneratedRequest }[] {
	const out: { rule: string; req: GeneratedRequest }[] = [];
	for (const p of paramsOf(op)) {
		const value =
			p.in === 'path'
				? req.path[p.name]
				: p.in === 'query'
					? req.query[p.name]
					: req.headers[p.name];
		if (value === undefined) {
			if (p.required && p.in === 'header') continue;
			continue;
		}
		for (const v of violationsOf(p.schema, value, [`${p.in}:${p.name}`])) {
			const asText = String(v.value);
			// On the wire a parameter is text: a "type" change that serialises to the same kind of text is no violation,
			// and an empty path segment is another route, not a short id.
			if (/: type$/.test(v.rule) && (typeof value === 'string' || /^-?\d+$/.test(asText))) continue;
			if (p.in === 'path' && asText === '') continue;
			if (typeof v.value === 'object') continue;
			const next: GeneratedRequest = {
				path: { ...req.path },
				query: { ...req.query },
				headers: { ...req.headers },
				body: req.body,
			};
			if (p.in === 'path') next.path[p.name] = asText;
			else if (p.in === 'query') next.query[p.name] = asText;
			else next.headers[p.name] = asText;
			out.push({ rule: v.rule, req: next });
		}
		if (p.in === 'header' && p.required) {
			const { [p.name]: _gone, ...rest } = req.headers;
			out.push({ rule: `header:${p.name}: required`, req: { ...req, headers: rest } });
		}
	}
	const schema = bodySchemaOf(op);
	if (schema && req.body !== undefined) {
		for (const v of violationsOf(schema, req.body))
			out.push({ rule: v.rule, req: { ...req, body: v.value } });
	}
	return out;
}

const operations = listOperations().filter((op) => op.path.startsWith('/api/v1'));

test('the document has operations to generate from', () => {
	expect(operations.length).toBeGreaterThanOrEqual(28);
});

describe.each(operations.map((op) => [`${op.method} ${op.path}`, op] as const))(
	'%s',
	(_name, op) => {
		test('valid requests from the schemas: no 5xx, every answer follows the document, none refused as invalid input', async () => {
			await fc.assert(
				fc.asyncProperty(requestArbitrary(op), async (req) => {
					const { status, body, problems } = await send(op, req);
					tally.valid += 1;
					expect(status).toBeLessThan(500);
					expect(formatProblems(problems)).toBe('no problems');
					if (status === 400 && !semanticRefusal(body)) {
						throw new Error(
							`a valid request was refused: ${op.method} ${urlOf(op, req)} ${JSON.stringify(req.body)} -> ${JSON.stringify(body?.error)}`,
						);
					}
				}),
				{ numRuns: VALID_RUNS, seed: SEED },
			);
		});

		test('each constraint violated one at a time: 400, the answer follows the document, nothing created', async () => {
			const samples = fc.sample(requestArbitrary(op), { numRuns: VIOLATION_SAMPLES, seed: SEED });
			let checked = 0;
			for (const sample of samples) {
				for (const { rule, req } of violationsOfRequest(op, sample)) {
					const before = created(await sb.control.counters(sb.seed.workspaceId));
					const { status, body, problems } = await send(op, req);
					expect([rule, status, formatProblems(problems)]).toEqual([rule, 400, 'no problems']);
					expect([rule, body?.error?.code]).toEqual([rule, 'BAD_REQUEST']);
					expect([rule, created(await sb.control.counters(sb.seed.workspaceId))]).toEqual([
						rule,
						before,
					]);
					checked += 1;
					tally.violations += 1;
				}
			}
			const hasConstraints = paramsOf(op).length > 0 || bodySchemaOf(op) !== undefined;
			// An operation with constraints had at least one of them checked.
			expect({
				hasConstraints,
				checked: hasConstraints ? checked > 0 : 'nothing to check',
			}).toEqual({
				hasConstraints,
				checked: hasConstraints ? true : 'nothing to check',
			});
		});
	},
);
