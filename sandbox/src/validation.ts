/**
 * Input rules of the spec (field tables, conventions, limits). Each violation becomes a detail
 * `{field, rule}` with `field` as a JSON path (e.g. `items[3].input.fileName`); all are reported at once.
 */
import { badRequest, type FieldIssue } from './errors';

export const PDF_MIME = 'application/pdf';
export const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
export const MAX_FILE_BYTES = 10_485_760;
export const MAX_BATCH_BYTES = 256 * 1024;
export const SOURCE_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9._:-]+$/;
/** Control characters: C0 (U+0000..U+001F), DEL and C1 (U+007F..U+009F). */
const hasControlCharacter = (s: string) =>
	[...s].some((ch) => {
		const c = ch.charCodeAt(0);
		return c < 0x20 || (c >= 0x7f && c <= 0x9f);
	});

/** Length in characters as the spec counts it: Unicode code points (an emoji is one, not two UTF-16 units). */
export const characterCount = (s: string): number => [...s].length;

const isObject = (v: unknown): v is Record<string, unknown> =>
	typeof v === 'object' && v !== null && !Array.isArray(v);

export class Validator {
	readonly issues: FieldIssue[] = [];

	add(field: string, rule: string): void {
		this.issues.push({ field, rule });
	}

	get ok(): boolean {
		return this.issues.length === 0;
	}

	throwIfAny(): void {
		if (this.issues.length) throw badRequest(this.issues);
	}

	object(
		field: string,
		value: unknown,
		allowed: string[],
		required = true,
	): Record<string, unknown> | undefined {
		if (value === undefined) {
			if (required) this.add(field, 'required');
			return undefined;
		}
		if (!isObject(value)) {
			this.add(field, 'type_object');
			return undefined;
		}
		for (const k of Object.keys(value))
			if (!allowed.includes(k)) this.add(join(field, k), 'unknown_field');
		return value;
	}

	string(
		field: string,
		value: unknown,
		o: {
			required?: boolean;
			min?: number;
			max?: number;
			pattern?: RegExp;
			patternRule?: string;
		} = {},
	): string | undefined {
		if (value === undefined || value === null) {
			if (o.required !== false) this.add(field, 'required');
			return undefined;
		}
		if (typeof value !== 'string') {
			this.add(field, 'type_string');
			return undefined;
		}
		const before = this.issues.length;
		const length = characterCount(value);
		if (o.min !== undefined && length < o.min) this.add(field, 'min_length');
		if (o.max !== undefined && length > o.max) this.add(field, 'max_length');
		if (o.pattern && value.length && !o.pattern.test(value))
			this.add(field, o.patternRule ?? 'pattern');
		return this.issues.length === before ? value : undefined;
	}

	integer(
		field: string,
		value: unknown,
		o: { required?: boolean; min?: number; max?: number } = {},
	): number | undefined {
		if (value === undefined || value === null) {
			if (o.required !== false) this.add(field, 'required');
			return undefined;
		}
		if (typeof value !== 'number' || !Number.isInteger(value)) {
			this.add(field, 'type_integer');
			return undefined;
		}
		if (o.min !== undefined && value < o.min) return (this.add(field, 'minimum'), undefined);
		if (o.max !== undefined && value > o.max) return (this.add(field, 'maximum'), undefined);
		return value;
	}

	boolean(field: string, value: unknown, required = false): boolean | undefined {
		if (value === undefined) {
			if (required) this.add(field, 'required');
			return undefined;
		}
		if (typeof value !== 'boolean') {
			this.add(field, 'type_boolean');
			return undefined;
		}
		return value;
	}

	email(field: string, value: unknown): string | undefined {
		const s = this.string(field, value, { min: 6, max: 254 });
		if (s === undefined) return undefined;
		if (!isEmail(s)) {
			this.add(field, 'email');
			return undefined;
		}
		return s;
	}
}

export function join(base: string, key: string): string {
	return base ? `${base}.${key}` : key;
}

/**
 * Email format (the pattern openapi.yaml states for Email): a local part of 1 to 64 characters, atext with
 * single dots between, and a domain of two or more labels whose last one is 2 to 63 letters. No IP literals.
 */
export const EMAIL_PATTERN =
	/^(?=[^@]{1,64}@)[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

export function isEmail(s: string): boolean {
	return EMAIL_PATTERN.test(s);
}

export interface ParsedJobRef {
	kind: 'existing' | 'text';
	id?: string;
	expectedRevision?: string;
	text?: string;
}

export interface ParsedUploadInput {
	fileName: string;
	fileSize: number;
	mimeType: string;
	externalReference: { source: string; id: string } | null;
	jobDescription: ParsedJobRef | null;
}

export function jobReference(
	v: Validator,
	field: string,
	value: unknown,
	required: boolean,
): ParsedJobRef | null {
	if (value === undefined) {
		if (required) v.add(field, 'required');
		return null;
	}
	if (!isObject(value)) {
		v.add(field, 'type_object');
		return null;
	}
	if (value.kind === 'existing') {
		v.object(field, value, ['kind', 'id', 'expectedRevision']);
		const id = v.string(join(field, 'id'), value.id, { min: 1, max: 100 });
		const expectedRevision = v.string(join(field, 'expectedRevision'), value.expectedRevision, {
			required: false,
			pattern: /^[a-fA-F0-9]{64}$/,
		});
		return { kind: 'existing', id, expectedRevision };
	}
	if (value.kind === 'text') {
		v.object(field, value, ['kind', 'text']);
		const text = v.string(join(field, 'text'), value.text, { min: 1, max: 50_000 });
		return { kind: 'text', text };
	}
	v.add(join(field, 'kind'), value.kind === undefined ? 'required' : 'enum');
	return null;
}

/** UploadInput (spec "UploadInput"); in a batch the job may come from the batch level. */
export function uploadInput(
	v: Validator,
	base: string,
	value: unknown,
	jobRequired: boolean,
): ParsedUploadInput | null {
	const o = v.object(base, value, [
		'fileName',
		'fileSize',
		'mimeType',
		'externalReference',
		'jobDescription',
	]);
	if (!o) return null;
	const before = v.issues.length;
	const f = (k: string) => join(base, k);
	const fileName = v.string(f('fileName'), o.fileName, { min: 1, max: 200 });
	if (fileName !== undefined) {
		if (/[/\\]/.test(fileName)) v.add(f('fileName'), 'no_path');
		else if (hasControlCharacter(fileName)) v.add(f('fileName'), 'no_control_characters');
		else if (!/\.(pdf|docx)$/i.test(fileName)) v.add(f('fileName'), 'extension');
	}
	const fileSize = v.integer(f('fileSize'), o.fileSize, { min: 1, max: MAX_FILE_BYTES });
	const mimeType = v.string(f('mimeType'), o.mimeType);
	if (mimeType !== undefined && mimeType !== PDF_MIME && mimeType !== DOCX_MIME)
		v.add(f('mimeType'), 'enum');
	else if (mimeType && fileName && /\.(pdf|docx)$/i.test(fileName)) {
		const ext = fileName.toLowerCase().endsWith('.pdf') ? PDF_MIME : DOCX_MIME;
		if (ext !== mimeType) v.add(f('mimeType'), 'matches_extension');
	}
	let externalReference: ParsedUploadInput['externalReference'] = null;
	if (o.externalReference !== undefined) {
		const er = v.object(f('externalReference'), o.externalReference, ['source', 'id']);
		if (er) {
			const source = v.string(join(f('externalReference'), 'source'), er.source, {
				min: 1,
				max: 64,
				pattern: SOURCE_PATTERN,
			});
			const id = v.string(join(f('externalReference'), 'id'), er.id, { min: 1, max: 128 });
			if (source !== undefined && id !== undefined) externalReference = { source, id };
		}
	}
	const jobDescription = jobReference(v, f('jobDescription'), o.jobDescription, jobRequired);
	if (v.issues.length !== before) return null;
	return {
		fileName: fileName!,
		fileSize: fileSize!,
		mimeType: mimeType!,
		externalReference,
		jobDescription,
	};
}

/** Path `id`: string of length 1 to 100 (spec "Endpoints / Conventions"). */
export function pathId(value: unknown, field = 'id'): string {
	const v = new Validator();
	const id = v.string(field, value, { min: 1, max: 100 });
	v.throwIfAny();
	return id!;
}

export function pageParams(
	v: Validator,
	query: Record<string, unknown>,
): { limit: number; cursor: string | undefined } {
	let limit = 25;
	if (query.limit !== undefined) {
		const raw = query.limit;
		if (typeof raw !== 'string' || !/^-?\d+$/.test(raw)) v.add('limit', 'type_integer');
		else {
			const n = Number(raw);
			if (n < 1) v.add('limit', 'minimum');
			else if (n > 100) v.add('limit', 'maximum');
			else limit = n;
		}
	}
	const cursor = v.string('cursor', query.cursor, { required: false, min: 1, max: 2048 });
	return { limit, cursor };
}

export function queryString(
	v: Validator,
	query: Record<string, unknown>,
	name: string,
	o: Parameters<Validator['string']>[2] = {},
) {
	return v.string(name, query[name], { required: false, ...o });
}

/** ISO 8601 date-time with a timezone (Z or ±hh:mm). */
export function isoDateTime(v: Validator, field: string, value: unknown): number | undefined {
	const s = v.string(field, value, { required: false });
	if (s === undefined) return undefined;
	if (
		!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/.test(s) ||
		Number.isNaN(Date.parse(s))
	) {
		v.add(field, 'date_time');
		return undefined;
	}
	return Date.parse(s);
}

export function allowOnly(v: Validator, query: Record<string, unknown>, allowed: string[]): void {
	for (const k of Object.keys(query)) {
		if (!allowed.includes(k)) v.add(k, 'unknown_parameter');
		else if (Array.isArray(query[k])) v.add(k, 'single_value');
	}
}
