/**
 * One read of a binary property for everything the node must know about its bytes before sending them: the first
 * bytes (the PDF / DOCX signature checks) and the sha-256 (the upload's idempotency key), with the byte count.
 *
 * Why one read: in n8n's database binary mode (the default in queue mode) every open of a stored file loads it whole
 * (n8n's DatabaseManager: `getAsStream()` is `Readable.from(await getAsBuffer())`). The read is kept per binary
 * object for the node's run (the router's check of every item, then the operation, then the PUT's own check), as
 * the few bytes it yields: never the file. A stored binary's bytes never change under its id.
 */
import { createHash } from 'node:crypto';

import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

/** What one read of a file gives. */
export interface BinaryFacts {
	/** The first bytes (a copy, at most HEAD_BYTES), for the signature checks. */
	head: Uint8Array;
	/** sha-256 (hex) of the whole content. */
	digest: string;
	/** Bytes read. */
	size: number;
}

/** Bytes kept from the start of a file (the checks look at 8). */
export const HEAD_BYTES = 16;

/** Base64 characters hashed per step when the binary is held in memory (a multiple of 4: whole byte groups). */
const BASE64_SLICE = 1 << 20;

/** The facts of each stored binary already read in this process (dropped with the binary object). */
const known = new WeakMap<IBinaryData, { id: string; facts: Promise<BinaryFacts> }>();

/** Streams a stored file (filesystem, database or S3 mode) once, through sha-256, keeping a copy of its first bytes. */
async function readStored(ctx: IExecuteFunctions, id: string): Promise<BinaryFacts> {
	const hash = createHash('sha256');
	const head = new Uint8Array(HEAD_BYTES);
	let size = 0;
	const stream = await ctx.helpers.getBinaryStream(id);
	for await (const chunk of stream as AsyncIterable<Uint8Array | string>) {
		const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
		// Copied, not a view: a view would keep a database-mode file's whole buffer alive.
		if (size < HEAD_BYTES) head.set(bytes.subarray(0, HEAD_BYTES - size), size);
		size += bytes.length;
		hash.update(bytes);
	}
	return { head: head.slice(0, Math.min(size, HEAD_BYTES)), digest: hash.digest('hex'), size };
}

/** The first bytes of base64 text, decoding only them. */
function inlineHead(data: string): Uint8Array {
	return Uint8Array.from(
		Buffer.from(data.slice(0, 4 * Math.ceil(HEAD_BYTES / 3)), 'base64').subarray(0, HEAD_BYTES),
	);
}

/** Hashes a binary held in memory as base64 slice by slice, so that it is never decoded whole. */
function readInline(data: string): BinaryFacts {
	const hash = createHash('sha256');
	let size = 0;
	for (let offset = 0; offset < data.length; offset += BASE64_SLICE) {
		const bytes = Buffer.from(data.slice(offset, offset + BASE64_SLICE), 'base64');
		size += bytes.length;
		hash.update(bytes);
	}
	return { head: inlineHead(data), digest: hash.digest('hex'), size };
}

/**
 * Head, sha-256 and size of a binary property: streamed once from n8n's binary store when the file is kept there
 * (it has an id; remembered for the binary object), hashed slice by slice when it is held in memory as base64 (no
 * store to open: read again each time, never decoded whole).
 */
export async function readBinaryFacts(
	ctx: IExecuteFunctions,
	binary: IBinaryData,
): Promise<BinaryFacts> {
	const id = binary.id;
	if (typeof id !== 'string' || id === '') return readInline(binary.data ?? '');
	const cached = known.get(binary);
	if (cached && cached.id === id) return await cached.facts;
	const facts = readStored(ctx, id);
	known.set(binary, { id, facts });
	// A failed read is not remembered: the next check reads again.
	facts.catch(() => known.delete(binary));
	return await facts;
}

/** sha256 (hex) of a binary property's bytes (readBinaryFacts: one streamed read, never a whole copy). */
export async function binaryDigest(ctx: IExecuteFunctions, binary: IBinaryData): Promise<string> {
	return (await readBinaryFacts(ctx, binary)).digest;
}

/**
 * The first bytes of a binary property (the signature checks): from the one remembered read of a stored file (the
 * same read gives the digest later), or from the first base64 characters of a binary held in memory.
 */
export async function binaryHead(ctx: IExecuteFunctions, binary: IBinaryData): Promise<Uint8Array> {
	if (typeof binary.id !== 'string' || binary.id === '') return inlineHead(binary.data ?? '');
	return (await readBinaryFacts(ctx, binary)).head;
}
