/**
 * fast-check arbitraries read from openapi/openapi.yaml: a valid value of a request schema (the subset of JSON
 * Schema the document's requests use: $ref, allOf, oneOf, object, array, string, integer, boolean, enum, const),
 * and, for a valid value, every single-constraint violation of it (one rule broken, the rest intact).
 *
 * Strings are made of code points from ASCII, Latin-1, CJK and astral emoji (lengths are counted in code points,
 * as the document and the server count them); lone surrogates never appear (they are not text).
 */
import fc from 'fast-check';
import { loadDocument } from '../helpers/contract';

/** A parsed YAML node, typed as JSON.parse types its result. */
type Json = ReturnType<typeof JSON.parse>;

const CHARACTER = fc.oneof(
	{ weight: 6, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
	{
		weight: 1,
		arbitrary: fc.constantFrom('é', 'ß', 'Ω', '中', '文', '\u{1F600}', '\u{1F680}', '\u{10348}'),
	},
);
const text = (minLength: number, maxLength: number) =>
	fc.string({ unit: CHARACTER, minLength, maxLength });
const length = (s: string) => [...s].length;

/** Follows `$ref` (`#/components/schemas/X`, `#/components/parameters/Y`, ...). */
export function deref(schema: Json): Json {
	let s = schema;
	while (s && typeof s.$ref === 'string') {
		const [, , section, name] = (s.$ref as string).split('/');
		s = loadDocument().components[section][name];
	}
	return s;
}

/** allOf merged into one object schema (properties, required, additionalProperties); if/then is dropped. */
function flatten(schema: Json): Json {
	const s = deref(schema);
	if (!s.allOf) return s;
	const out: Json = {
		...s,
		allOf: undefined,
		properties: { ...(s.properties ?? {}) },
		required: [...(s.required ?? [])],
	};
	for (const part of s.allOf.map(flatten)) {
		if (part.if) continue;
		Object.assign(out.properties, part.properties ?? {});
		out.required.push(...(part.required ?? []));
		if (part.type) out.type = part.type;
		if (part.additionalProperties !== undefined)
			out.additionalProperties = part.additionalProperties;
	}
	return out;
}

/** Email addresses the document's Email pattern allows (it has a look-ahead fast-check cannot read). */
const email = fc
	.tuple(
		fc.stringMatching(/^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]{1,12}(\.[A-Za-z0-9_-]{1,6}){0,2}$/),
		fc.stringMatching(/^([a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?\.){1,3}[a-z]{2,6}$/),
	)
	.map(([local, domain]) => `${local}@${domain}`);

/** fileName, fileSize and mimeType that agree (the document's if/then: the extension follows the type). */
function uploadFields(schema: Json): fc.Arbitrary<Record<string, unknown>> {
	const base = valueOf(
		{ ...schema, properties: { ...schema.properties, fileName: undefined, mimeType: undefined } },
		['fileName', 'mimeType'],
	);
	return fc
		.tuple(
			base,
			fc.constantFrom(
				'application/pdf',
				'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
			),
			text(1, 150).filter(
				(s) =>
					![...s].some(
						(c) =>
							c === '/' ||
							c === '\\' ||
							c.charCodeAt(0) < 0x20 ||
							(c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f),
					),
			),
		)
		.map(([rest, mimeType, stem]) => ({
			...rest,
			mimeType,
			fileName: `${stem}.${mimeType === 'application/pdf' ? 'pdf' : 'docx'}`,
		}));
}

/** A valid value of `schema` (`skip` leaves those properties out, for the caller to add). */
export function valueOf(schemaIn: Json, skip: string[] = []): fc.Arbitrary<Json> {
	const raw = deref(schemaIn);
	if (schemaIn?.$ref?.endsWith('/Email')) return email;
	if (raw === undefined) return fc.constant(undefined);
	if (raw.const !== undefined) return fc.constant(raw.const);
	if (raw.enum) return fc.constantFrom(...raw.enum);
	if (raw.oneOf) return fc.oneof(...raw.oneOf.map((s: Json) => valueOf(s)));
	const s = flatten(raw);
	if (
		schemaIn?.$ref?.endsWith('/UploadInputFields') ||
		(s.properties?.fileName && s.properties?.mimeType && !skip.length)
	)
		return uploadFields(s);
	const type = Array.isArray(s.type)
		? s.type[0]
		: (s.type ?? (s.properties ? 'object' : undefined));
	switch (type) {
		case 'object': {
			const model: Record<string, fc.Arbitrary<Json>> = {};
			for (const [k, v] of Object.entries<Json>(s.properties ?? {}))
				if (v !== undefined && !skip.includes(k)) model[k] = valueOf(v);
			// `if: {not: {required: [k]}}, then: ...` (a field the rest depends on): always give k, which is valid.
			const dependedOn: string[] = raw.if?.not?.required ?? [];
			const required = [...(s.required ?? []), ...dependedOn].filter((k: string) => model[k]);
			return fc.record(model, { requiredKeys: required });
		}
		case 'array': {
			const item = deref(s.items);
			const min = s.minItems ?? 0;
			const max = Math.min(s.maxItems ?? 5, 5);
			if (item.properties?.itemKey)
				return fc.uniqueArray(valueOf(item), {
					minLength: min,
					maxLength: max,
					selector: (v: Json) => v.itemKey,
				});
			return fc.array(valueOf(item), { minLength: min, maxLength: max });
		}
		case 'integer':
			return fc.integer({ min: s.minimum ?? 0, max: s.maximum ?? 1000 });
		case 'boolean':
			return fc.boolean();
		case 'string': {
			if (s.format === 'date-time')
				return fc
					.date({
						min: new Date('2000-01-01T00:00:00Z'),
						max: new Date('2100-01-01T00:00:00Z'),
						noInvalidDate: true,
					})
					.map((d) => d.toISOString());
			const min = s.minLength ?? 0;
			const max = Math.min(s.maxLength ?? 40, 120);
			if (s.pattern)
				return fc
					.stringMatching(new RegExp(s.pattern))
					.filter((v) => length(v) >= min && length(v) <= (s.maxLength ?? Infinity));
			return text(min, Math.max(min, max));
		}
		default:
			return fc.constant({});
	}
}

export interface Violation {
	/** What was broken, e.g. `items.0.input.reportId: maxLength`. */
	rule: string;
	value: Json;
}

/** A string that breaks `pattern` (and nothing else if it can). */
function breaksPattern(pattern: string, min: number): string | undefined {
	const re = new RegExp(pattern);
	return ['!!', '/x', ' x ', 'x\u0000', 'ZZ', '9'.repeat(Math.max(min, 1))].find(
		(c) => !re.test(c) && length(c) >= min,
	);
}

/** Every single-constraint violation of the valid `value` of `schema`, each as a whole new body. */
export function violationsOf(schemaIn: Json, value: Json, path: string[] = []): Violation[] {
	const raw = deref(schemaIn);
	const at = (rule: string, v: Json): Violation => ({
		rule: `${path.join('.') || 'body'}: ${rule}`,
		value: v,
	});
	const out: Violation[] = [];
	if (raw === undefined) return out;
	if (raw.oneOf) {
		// The branch the value is in: break it from inside (its kind, its fields), or give a kind of no branch.
		const branch = raw.oneOf
			.map(deref)
			.find((b: Json) => b.properties?.kind?.const === value?.kind);
		if (branch)
			out.push(...violationsOf(branch, value, path).filter((x) => !x.rule.endsWith('kind: const')));
		out.push(at('oneOf', { ...value, kind: 'neither' }));
		return out;
	}
	if (raw.const !== undefined)
		return [at('const', typeof raw.const === 'string' ? `${raw.const}-not` : 'not-the-constant')];
	if (raw.enum) return [at('enum', 'not-in-the-enum'), at('type', 7)];
	const s = flatten(raw);
	const type = Array.isArray(s.type)
		? s.type[0]
		: (s.type ?? (s.properties ? 'object' : undefined));
	if (schemaIn?.$ref?.endsWith('/Email'))
		out.push(
			at('pattern', 'a@com'),
			at('pattern', 'a@[127.0.0.1]'),
			at('pattern', '.a@example.com'),
		);
	switch (type) {
		case 'object': {
			out.push(at('type', []));
			if (s.additionalProperties === false)
				out.push(at('additionalProperties', { ...value, unexpectedField: 1 }));
			for (const k of s.required ?? []) {
				const { [k]: _gone, ...rest } = value;
				out.push(at(`required ${k}`, rest));
			}
			for (const [k, sub] of Object.entries<Json>(s.properties ?? {})) {
				if (value[k] === undefined) continue;
				for (const inner of violationsOf(sub, value[k], [...path, k]))
					out.push({ rule: inner.rule, value: { ...value, [k]: inner.value } });
			}
			return out;
		}
		case 'array': {
			out.push(at('type', {}));
			if (s.minItems) out.push(at('minItems', []));
			if (s.maxItems !== undefined && value.length) {
				const many = Array.from({ length: s.maxItems + 1 }, (_, i) =>
					value[0]?.itemKey !== undefined ? { ...value[0], itemKey: `k${i}` } : value[0],
				);
				out.push(at('maxItems', many));
			}
			if (value.length) {
				for (const inner of violationsOf(s.items, value[0], [...path, '0']))
					out.push({ rule: inner.rule, value: [inner.value, ...value.slice(1)] });
			}
			return out;
		}
		case 'integer':
			out.push(at('type', String(value)), at('type', value + 0.5));
			if (s.minimum !== undefined) out.push(at('minimum', s.minimum - 1));
			if (s.maximum !== undefined) out.push(at('maximum', s.maximum + 1));
			return out;
		case 'boolean':
			return [at('type', 'yes')];
		case 'string': {
			out.push(at('type', 12345));
			if (s.format === 'date-time') out.push(at('format', '2026-13-45 25:61'));
			if (s.minLength) out.push(at('minLength', ''));
			if (s.maxLength !== undefined) {
				// Emoji (two UTF-16 units each) where the value travels in a body; ASCII in a URL, where 2049 emoji
				// would pass the server's 16 KiB header limit before any length rule is read.
				const inUrl = /^(query|path):/.test(path[0] ?? '');
				const long =
					s.pattern || inUrl
						? value + 'a'.repeat(s.maxLength + 1 - length(value))
						: '\u{1F600}'.repeat(s.maxLength + 1);
				out.push(at('maxLength', long));
			}
			if (s.pattern) {
				const bad = breaksPattern(s.pattern, s.minLength ?? 0);
				if (bad !== undefined) out.push(at('pattern', bad));
			}
			return out;
		}
		default:
			return out;
	}
}
