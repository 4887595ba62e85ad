/**
 * The OpenAPI contract (`openapi/openapi.yaml`) as a test oracle.
 *
 * - The document is read once and checked with @seriousme/openapi-schema-validator (a real OpenAPI 3.1
 *   validator). That package is ESM-only and Jest runs CommonJS, so it runs in a child Node process.
 * - Bodies are checked with ajv (JSON Schema draft 2020-12, the dialect of OpenAPI 3.1) + ajv-formats;
 *   every `#/components/schemas/...` reference resolves inside one registered schema.
 * - `validateResponse` and `validateRequestBody` return a list of human-readable problems; an empty list
 *   means the message follows the contract. An unknown route, method or status is itself a problem.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse as parseYaml } from 'yaml';

export const OPENAPI_FILE = path.resolve(__dirname, '../../openapi/openapi.yaml');

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const SCHEMA_BASE = 'urn:recruiting-analysis:openapi';

/** A parsed YAML/JSON node, typed as JSON.parse types its result. */
type Json = ReturnType<typeof JSON.parse>;

export interface OpenApiDocument {
	openapi: string;
	info: { version: string; [k: string]: Json };
	paths: Record<string, Record<string, Json>>;
	webhooks?: Record<string, Record<string, Json>>;
	components: Record<string, Record<string, Json>>;
	[k: string]: Json;
}

export interface DocumentValidation {
	valid: boolean;
	errors?: unknown;
}

export interface OperationInfo {
	method: string; // upper case
	path: string; // OpenAPI path template
	operationId: string;
	requiredScopes: string[];
	operation: Json;
}

export interface ResponseToCheck {
	method: string;
	/** OpenAPI template (`/api/v1/uploads/{id}/url`), a framework route (`/api/v1/uploads/:id/url`) or a concrete path. */
	route?: string;
	/** Used when `route` is absent: the request URL (query ignored). */
	url?: string;
	status: number;
	headers: Record<string, string | string[] | number | undefined>;
	/** Parsed JSON, a raw string or Buffer, or undefined/null/'' for an empty body. */
	body: unknown;
}

let documentCache: OpenApiDocument | undefined;
let documentValidationCache: DocumentValidation | undefined;
let ajvCache: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

/** The parsed document (read once). */
export function loadDocument(): OpenApiDocument {
	if (!documentCache)
		documentCache = parseYaml(readFileSync(OPENAPI_FILE, 'utf8')) as OpenApiDocument;
	return documentCache;
}

/**
 * Runs the OpenAPI schema validator on the contract (once, cached) or on another file, and returns its
 * verdict (`errors` holds the validator's own report).
 */
export function validateDocument(file: string = OPENAPI_FILE): DocumentValidation {
	if (file === OPENAPI_FILE && documentValidationCache) return documentValidationCache;
	const cli = require.resolve('@seriousme/openapi-schema-validator/bin/validate-api-cli.js');
	let stdout: string;
	try {
		stdout = execFileSync(process.execPath, [cli, file], { encoding: 'utf8' });
	} catch (error) {
		// The CLI exits 1 when the document is invalid; its verdict is still on stdout.
		const failed = error as { stdout?: string; stderr?: string; message: string };
		if (!failed.stdout)
			throw new Error(`openapi validator did not run: ${failed.stderr ?? failed.message}`);
		stdout = failed.stdout;
	}
	const verdict = JSON.parse(stdout) as DocumentValidation;
	if (file === OPENAPI_FILE) documentValidationCache = verdict;
	return verdict;
}

function assertDocumentValid(): void {
	const verdict = validateDocument();
	if (!verdict.valid) {
		throw new Error(
			`openapi/openapi.yaml is not a valid OpenAPI document: ${JSON.stringify(verdict.errors, null, 2)}`,
		);
	}
}

/** Follows an OpenAPI-level `$ref` (`#/components/...`) until a plain object is reached. */
function deref(node: Json): Json {
	let current = node;
	for (
		let hops = 0;
		current && typeof current === 'object' && typeof current.$ref === 'string';
		hops++
	) {
		if (hops > 20) throw new Error(`reference loop at ${node.$ref}`);
		current = pointer(loadDocument(), current.$ref);
	}
	return current;
}

function pointer(root: Json, ref: string): Json {
	if (!ref.startsWith('#/')) throw new Error(`only local references are supported: ${ref}`);
	let node = root;
	for (const raw of ref.slice(2).split('/')) {
		const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
		node = node?.[key];
		if (node === undefined) throw new Error(`unresolvable reference ${ref}`);
	}
	return node;
}

/** Rewrites `#/components/schemas/X` into the registered schema's `$defs` so ajv resolves it. */
function rebase(schema: Json): Json {
	if (Array.isArray(schema)) return schema.map(rebase);
	if (!schema || typeof schema !== 'object') return schema;
	const out: Json = {};
	for (const [key, value] of Object.entries(schema)) {
		if (key === '$ref' && typeof value === 'string') {
			if (!value.startsWith('#/components/schemas/'))
				throw new Error(`schema reference outside components/schemas: ${value}`);
			out.$ref = `${SCHEMA_BASE}#/$defs/${value.slice('#/components/schemas/'.length)}`;
		} else {
			out[key] = rebase(value);
		}
	}
	return out;
}

function collectExtensionKeywords(node: Json, found: Set<string>): void {
	if (Array.isArray(node)) node.forEach((n) => collectExtensionKeywords(n, found));
	else if (node && typeof node === 'object') {
		for (const [key, value] of Object.entries(node)) {
			if (key.startsWith('x-')) found.add(key);
			collectExtensionKeywords(value, found);
		}
	}
}

function getAjv(): Ajv2020 {
	if (ajvCache) return ajvCache;
	assertDocumentValid();
	const doc = loadDocument();
	// Strict mode catches misspelt keywords in the document; OpenAPI's own annotations are declared.
	const ajv = new Ajv2020({
		allErrors: true,
		strict: true,
		strictRequired: false,
		strictTypes: false,
		allowUnionTypes: true,
	});
	addFormats(ajv);
	const extensions = new Set<string>();
	collectExtensionKeywords(doc.components.schemas, extensions);
	ajv.addVocabulary(['example', 'discriminator', 'externalDocs', 'xml', ...extensions]);
	ajv.addSchema({ $id: SCHEMA_BASE, $defs: rebase(doc.components.schemas) });
	ajvCache = ajv;
	return ajv;
}

function compile(cacheKey: string, schema: Json): ValidateFunction {
	let fn = compiled.get(cacheKey);
	if (!fn) {
		fn = getAjv().compile(rebase(schema));
		compiled.set(cacheKey, fn);
	}
	return fn;
}

function describeErrors(where: string, errors: ErrorObject[] | null | undefined): string[] {
	return (errors ?? []).map((e) => {
		const extra =
			e.keyword === 'additionalProperties'
				? ` (${(e.params as { additionalProperty: string }).additionalProperty})`
				: e.keyword === 'const' || e.keyword === 'enum'
					? ` (${JSON.stringify(e.params)})`
					: '';
		return `${where}${e.instancePath || '/'} ${e.message}${extra}`;
	});
}

/** Validates a value against `components/schemas/<name>`; returns problems. */
export function validateSchema(name: string, value: unknown): string[] {
	const schemas = loadDocument().components.schemas;
	if (!schemas[name]) return [`no schema named ${name} in components/schemas`];
	const fn = compile(`schema:${name}`, { $ref: `#/components/schemas/${name}` });
	return fn(value) ? [] : describeErrors(name, fn.errors);
}

/** Every operation of `paths`, with its scopes. */
export function listOperations(): OperationInfo[] {
	const doc = loadDocument();
	const out: OperationInfo[] = [];
	for (const [p, item] of Object.entries(doc.paths)) {
		for (const m of HTTP_METHODS) {
			const op = item[m];
			if (op)
				out.push({
					method: m.toUpperCase(),
					path: p,
					operationId: op.operationId,
					requiredScopes: op['x-required-scopes'] ?? [],
					operation: op,
				});
		}
	}
	return out;
}

function segments(p: string): string[] {
	return p
		.split('?')[0]
		.split('/')
		.filter((s, i) => i > 0 || s !== '');
}
const isParam = (s: string) => /^\{[^}]+\}$/.test(s) || s.startsWith(':');

/**
 * Finds the OpenAPI path template for a template, a framework route (`:id`) or a concrete path.
 * Literal segments win over parameters, so `/api/v1/uploads/x/url` never matches a shorter template.
 */
export function resolveRoute(routeOrUrl: string): string | undefined {
	let pathname = routeOrUrl;
	if (/^https?:\/\//.test(pathname)) pathname = new URL(pathname).pathname;
	pathname = pathname.split('?')[0];
	const given = segments(pathname);
	let best: { template: string; literal: number } | undefined;
	for (const template of Object.keys(loadDocument().paths)) {
		const want = segments(template);
		if (want.length !== given.length) continue;
		let literal = 0;
		let ok = true;
		for (let i = 0; i < want.length && ok; i++) {
			if (isParam(want[i])) ok = given[i].length > 0;
			else if (want[i] === given[i]) literal++;
			else ok = false;
		}
		if (ok && (!best || literal > best.literal)) best = { template, literal };
	}
	return best?.template;
}

function headerValue(headers: ResponseToCheck['headers'], name: string): string | undefined {
	const lower = name.toLowerCase();
	for (const [k, v] of Object.entries(headers ?? {})) {
		if (k.toLowerCase() === lower && v !== undefined)
			return Array.isArray(v) ? v.join(', ') : String(v);
	}
	return undefined;
}

function isEmptyBody(body: unknown): boolean {
	return (
		body === undefined ||
		body === null ||
		body === '' ||
		(Buffer.isBuffer(body) && body.length === 0)
	);
}

function parseJsonBody(body: unknown): { value?: unknown; problem?: string } {
	if (Buffer.isBuffer(body)) body = body.toString('utf8');
	if (typeof body === 'string') {
		try {
			return { value: JSON.parse(body) };
		} catch {
			return { problem: `body is not JSON: ${body.slice(0, 120)}` };
		}
	}
	return { value: body };
}

function checkHeaderSchema(where: string, name: string, header: Json, raw: string): string[] {
	const schema = header.schema ?? {};
	let value: unknown = raw;
	const types = ([] as string[]).concat(schema.type ?? []);
	if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(raw.trim()))
		value = Number(raw.trim());
	const fn = compile(`header:${name}:${JSON.stringify(schema)}`, schema);
	return fn(value)
		? []
		: describeErrors(`${where} header ${name}=${JSON.stringify(raw)}`, fn.errors);
}

function checkResponseObject(
	where: string,
	responseDef: Json,
	cacheKey: string,
	r: ResponseToCheck,
): string[] {
	const problems: string[] = [];
	const response = deref(responseDef);
	for (const [name, headerRef] of Object.entries<Json>(response.headers ?? {})) {
		const header = deref(headerRef);
		const raw = headerValue(r.headers, name);
		if (raw === undefined) {
			if (header.required) problems.push(`${where} missing required header ${name}`);
			continue;
		}
		problems.push(...checkHeaderSchema(where, name, header, raw));
	}
	const content: Record<string, Json> | undefined = response.content;
	if (!content) {
		if (!isEmptyBody(r.body))
			problems.push(
				`${where} must have an empty body, got ${JSON.stringify(r.body).slice(0, 200)}`,
			);
		return problems;
	}
	if (isEmptyBody(r.body)) {
		problems.push(`${where} has an empty body; expected ${Object.keys(content).join(' or ')}`);
		return problems;
	}
	const contentType = (headerValue(r.headers, 'content-type') ?? '')
		.split(';')[0]
		.trim()
		.toLowerCase();
	const mediaType = Object.keys(content).find((m) => m.toLowerCase() === contentType);
	if (!mediaType) {
		problems.push(
			`${where} Content-Type ${JSON.stringify(contentType)} is not one of ${Object.keys(content).join(', ')}`,
		);
		return problems;
	}
	const schema = content[mediaType].schema;
	if (!schema) return problems;
	const isJson = /json/.test(mediaType);
	const parsed = isJson ? parseJsonBody(r.body) : { value: r.body };
	if (parsed.problem) return [...problems, `${where} ${parsed.problem}`];
	const fn = compile(`${cacheKey}:${mediaType}`, schema);
	if (!fn(parsed.value)) problems.push(...describeErrors(`${where} body`, fn.errors));
	return problems;
}

/** Validates one recorded HTTP response against the contract; returns the problems found. */
export function validateResponse(r: ResponseToCheck): string[] {
	const method = r.method.toLowerCase();
	const given = r.route ?? r.url;
	const where = `${r.method.toUpperCase()} ${given ?? '?'} ${r.status}:`;
	if (!given) return [`${where} neither route nor url given`];
	const template = resolveRoute(given);
	if (!template) return [`${where} route is not in the contract`];
	const pathItem = loadDocument().paths[template];
	const operation = pathItem[method];
	if (!operation) {
		if (r.status !== 405)
			return [`${where} method ${r.method.toUpperCase()} is not defined for ${template}`];
		// 405 applies to every undeclared method of a path; Allow must name the declared ones.
		const problems = [
			...checkResponseObject(
				where,
				{ $ref: '#/components/responses/MethodNotAllowed' },
				'response:405',
				r,
			),
			...checkRequestIdEcho(where, r),
		];
		const allow = headerValue(r.headers, 'allow');
		if (allow !== undefined) {
			const declared = HTTP_METHODS.filter((m) => pathItem[m]).map((m) => m.toUpperCase());
			const listed = allow
				.split(',')
				.map((s) => s.trim().toUpperCase())
				.filter(Boolean);
			for (const m of declared)
				if (!listed.includes(m))
					problems.push(`${where} Allow ${JSON.stringify(allow)} omits ${m}`);
			for (const m of listed) {
				if (
					!declared.includes(m) &&
					!(m === 'HEAD' && declared.includes('GET')) &&
					m !== 'OPTIONS'
				) {
					problems.push(
						`${where} Allow ${JSON.stringify(allow)} lists ${m}, which ${template} does not support`,
					);
				}
			}
			if (listed.includes(r.method.toUpperCase()))
				problems.push(`${where} Allow lists the refused method itself`);
		}
		return problems;
	}
	const responses = operation.responses ?? {};
	const status = String(r.status);
	const key = responses[status]
		? status
		: responses[`${status[0]}XX`]
			? `${status[0]}XX`
			: undefined;
	if (!key)
		return [
			`${where} status ${status} is not documented for ${r.method.toUpperCase()} ${template} (documented: ${Object.keys(responses).join(', ')})`,
		];
	return [
		...checkResponseObject(where, responses[key], `response:${method}:${template}:${key}`, r),
		...checkRequestIdEcho(where, r),
	];
}

/** Spec "Errors": the error body's requestId is the request's id, so it must equal X-Request-Id. */
function checkRequestIdEcho(where: string, r: ResponseToCheck): string[] {
	const parsed = r.status >= 400 && !isEmptyBody(r.body) ? parseJsonBody(r.body) : {};
	const requestId = (parsed.value as { error?: { requestId?: unknown } } | undefined)?.error
		?.requestId;
	const header = headerValue(r.headers, 'x-request-id');
	if (requestId === undefined || header === undefined || requestId === header) return [];
	return [
		`${where} error.requestId ${JSON.stringify(requestId)} differs from X-Request-Id ${JSON.stringify(header)}`,
	];
}

/** Validates a request body against the operation's requestBody; returns the problems found. */
export function validateRequestBody(
	method: string,
	route: string,
	body: unknown,
	contentType = 'application/json',
): string[] {
	const where = `${method.toUpperCase()} ${route} request:`;
	const template = resolveRoute(route);
	if (!template) return [`${where} route is not in the contract`];
	const operation = loadDocument().paths[template][method.toLowerCase()];
	if (!operation) return [`${where} method is not defined for ${template}`];
	const requestBody = deref(operation.requestBody);
	if (!requestBody) return isEmptyBody(body) ? [] : [`${where} takes no body`];
	if (isEmptyBody(body)) return requestBody.required ? [`${where} body is required`] : [];
	const media = requestBody.content?.[contentType];
	if (!media)
		return [
			`${where} content type ${contentType} not accepted (${Object.keys(requestBody.content ?? {}).join(', ')})`,
		];
	const fn = compile(`request:${method}:${template}:${contentType}`, media.schema ?? {});
	return fn(body) ? [] : describeErrors(`${where} body`, fn.errors);
}

/**
 * Validates one parameter value (path, query or header; as sent, so strings are coerced to numbers or
 * booleans when the schema wants them) against the operation's parameter of that name.
 */
export function validateParameter(
	method: string,
	route: string,
	name: string,
	value: string,
): string[] {
	const where = `${method.toUpperCase()} ${route} parameter ${name}=${JSON.stringify(value)}:`;
	const template = resolveRoute(route);
	if (!template) return [`${where} route is not in the contract`];
	const pathItem = loadDocument().paths[template];
	const operation = pathItem[method.toLowerCase()];
	if (!operation) return [`${where} method is not defined for ${template}`];
	const params: Json[] = [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])].map(
		deref,
	);
	const param = params.find((p) =>
		p.in === 'header' ? p.name.toLowerCase() === name.toLowerCase() : p.name === name,
	);
	if (!param) return [`${where} not a parameter of ${method.toUpperCase()} ${template}`];
	const schema = param.schema?.$ref ? deref(param.schema) : (param.schema ?? {});
	const types = ([] as string[]).concat(schema.type ?? []);
	let coerced: unknown = value;
	if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(value))
		coerced = Number(value);
	if (types.includes('boolean') && (value === 'true' || value === 'false'))
		coerced = value === 'true';
	const fn = compile(`param:${method}:${template}:${param.in}:${param.name}`, param.schema ?? {});
	return fn(coerced) ? [] : describeErrors(where, fn.errors);
}

/**
 * Validates a webhook delivery: Standard Webhooks headers and the body schema of `webhooks[type]`
 * (unknown types are checked against the generic Event schema). `body` is the raw text or parsed JSON.
 */
export function validateWebhookDelivery(
	headers: ResponseToCheck['headers'],
	body: unknown,
): string[] {
	const parsed = parseJsonBody(body);
	if (parsed.problem) return [`webhook: ${parsed.problem}`];
	const event = parsed.value as { type?: unknown };
	const type = typeof event?.type === 'string' ? event.type : undefined;
	const hook = type ? loadDocument().webhooks?.[type]?.post : undefined;
	const problems: string[] = [];
	const parameters: Json[] =
		(hook ?? loadDocument().webhooks?.['webhook.test']?.post)?.parameters ?? [];
	for (const paramRef of parameters) {
		const param = deref(paramRef);
		if (param.in !== 'header') continue;
		const raw = headerValue(headers, param.name);
		if (raw === undefined) {
			if (param.required) problems.push(`webhook: missing header ${param.name}`);
		} else problems.push(...checkHeaderSchema('webhook:', param.name, param, raw));
	}
	if (!hook) return [...problems, ...validateSchema('Event', event)];
	const schema = deref(hook.requestBody).content['application/json'].schema;
	const fn = compile(`webhook:${type}`, schema);
	if (!fn(event)) problems.push(...describeErrors(`webhook ${type} body`, fn.errors));
	// Every body, whatever its type, must also be a valid feed item.
	problems.push(...validateSchema('Event', event));
	return problems;
}

/** Formats problems for a failing assertion. */
export function formatProblems(problems: string[]): string {
	return problems.length === 0
		? 'no problems'
		: `${problems.length} contract problem(s):\n  - ${problems.join('\n  - ')}`;
}
