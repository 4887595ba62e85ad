// One read per binary: n8n's database mode loads the whole file on each open (n8n-core DatabaseManager getAsStream).
import { createHash } from 'node:crypto';

import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

const HEAD_BYTES = 16;

// Data held in memory is decoded a slice at a time, never as a second whole copy.
const BASE64_SLICE = 1 << 20;

const known = new WeakMap<IBinaryData, { id: string; facts: ReturnType<typeof readFacts> }>();

async function* bytesOf(ctx: IExecuteFunctions, binary: IBinaryData): AsyncIterable<Uint8Array> {
	if (binary.id) {
		const stream = await ctx.helpers.getBinaryStream(binary.id);
		for await (const chunk of stream as AsyncIterable<Uint8Array | string>)
			yield typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
		return;
	}
	const data = binary.data ?? '';
	for (let offset = 0; offset < data.length; offset += BASE64_SLICE)
		yield Buffer.from(data.slice(offset, offset + BASE64_SLICE), 'base64');
}

async function readFacts(ctx: IExecuteFunctions, binary: IBinaryData) {
	const hash = createHash('sha256');
	const head = new Uint8Array(HEAD_BYTES);
	let size = 0;
	for await (const bytes of bytesOf(ctx, binary)) {
		// Copied, not a view: a view would keep a database-mode file's whole buffer alive.
		if (size < HEAD_BYTES) head.set(bytes.subarray(0, HEAD_BYTES - size), size);
		size += bytes.length;
		hash.update(bytes);
	}
	return { head: head.slice(0, Math.min(size, HEAD_BYTES)), digest: hash.digest('hex'), size };
}

export async function readBinaryFacts(ctx: IExecuteFunctions, binary: IBinaryData) {
	const id = binary.id ?? '';
	const cached = known.get(binary);
	if (cached?.id === id) return await cached.facts;
	const facts = readFacts(ctx, binary);
	known.set(binary, { id, facts });
	facts.catch(() => known.delete(binary));
	return await facts;
}
