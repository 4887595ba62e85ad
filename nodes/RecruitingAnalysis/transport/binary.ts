// One read per binary: n8n's database mode loads the whole file on each open (n8n-core DatabaseManager getAsStream).
import { createHash } from 'node:crypto';

import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

export interface BinaryFacts {
	head: Uint8Array;
	digest: string;
	size: number;
}

export const HEAD_BYTES = 16;

const BASE64_SLICE = 1 << 20;

const known = new WeakMap<IBinaryData, { id: string; facts: Promise<BinaryFacts> }>();

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

function inlineHead(data: string): Uint8Array {
	return Uint8Array.from(
		Buffer.from(data.slice(0, 4 * Math.ceil(HEAD_BYTES / 3)), 'base64').subarray(0, HEAD_BYTES),
	);
}

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
	facts.catch(() => known.delete(binary));
	return await facts;
}

export async function binaryDigest(ctx: IExecuteFunctions, binary: IBinaryData): Promise<string> {
	return (await readBinaryFacts(ctx, binary)).digest;
}

export async function binaryHead(ctx: IExecuteFunctions, binary: IBinaryData): Promise<Uint8Array> {
	if (typeof binary.id !== 'string' || binary.id === '') return inlineHead(binary.data ?? '');
	return (await readBinaryFacts(ctx, binary)).head;
}
