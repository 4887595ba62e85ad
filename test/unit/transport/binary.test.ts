/**
 * transport/binary.ts: one streamed read of a stored file gives its first bytes, sha-256 and size, remembered per
 * binary object. The stream stands in for n8n's binary store: database mode hands the whole file as ONE chunk
 * (`Readable.from(buffer)`, n8n's DatabaseManager), filesystem mode in small chunks.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';

import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

import { readBinaryFacts } from '../../../nodes/RecruitingAnalysis/transport/binary';

function store(bytes: Buffer, chunkSize?: number) {
	const opens: string[] = [];
	const ctx = {
		helpers: {
			getBinaryStream: async (id: string) => {
				opens.push(id);
				if (chunkSize === undefined) return Readable.from(bytes); // a Buffer is one chunk
				const chunks: Buffer[] = [];
				for (let at = 0; at < bytes.length; at += chunkSize)
					chunks.push(bytes.subarray(at, at + chunkSize));
				return Readable.from(chunks);
			},
		},
	} as unknown as IExecuteFunctions;
	return { ctx, opens };
}

const file = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2 * 1024 * 1024 + 5, 0x41)]);
const sha = createHash('sha256').update(file).digest('hex');

describe('readBinaryFacts', () => {
	test('database mode (the whole file in one chunk): one open for head, digest and size; the head is a copy', async () => {
		const { ctx, opens } = store(file);
		const binary = { id: 'database:abc', mimeType: 'application/pdf', data: '' } as IBinaryData;
		const head = (await readBinaryFacts(ctx, binary)).head;
		expect(Buffer.from(head).toString('latin1')).toBe(file.subarray(0, 16).toString('latin1'));
		// A view of the chunk would keep the whole file alive as long as the head is remembered.
		expect(head.buffer.byteLength).toBeLessThanOrEqual(16);
		expect((await readBinaryFacts(ctx, binary)).digest).toBe(sha);
		expect((await readBinaryFacts(ctx, binary)).head).toEqual(head);
		expect((await readBinaryFacts(ctx, binary)).size).toBe(file.length);
		expect(opens).toEqual(['database:abc']);
	});

	test('filesystem mode in chunks shorter than the head: the same head, digest and size', async () => {
		const { ctx } = store(file, 64 * 1024);
		const small = Buffer.from(file.subarray(0, 4000));
		const { ctx: smallCtx } = store(small, 3);
		const facts = await readBinaryFacts(smallCtx, {
			id: 'filesystem-v2:x',
			mimeType: 'application/pdf',
			data: '',
		} as IBinaryData);
		expect(facts).toEqual({
			head: Uint8Array.from(small.subarray(0, 16)),
			digest: createHash('sha256').update(small).digest('hex'),
			size: 4000,
		});
		expect(
			(
				await readBinaryFacts(ctx, {
					id: 'filesystem-v2:y',
					mimeType: 'application/pdf',
					data: '',
				} as IBinaryData)
			).digest,
		).toBe(sha);
	});

	test('a file shorter than the head; a failed read is not remembered', async () => {
		const tiny = Buffer.from('%PDF');
		const { ctx, opens } = store(tiny);
		const binary = { id: 'database:tiny', mimeType: 'application/pdf', data: '' } as IBinaryData;
		expect(await readBinaryFacts(ctx, binary)).toEqual({
			head: Uint8Array.from(tiny),
			digest: createHash('sha256').update(tiny).digest('hex'),
			size: 4,
		});
		let fail = true;
		const failing = {
			helpers: {
				getBinaryStream: async () => {
					if (fail) throw new Error('store down');
					opens.push('again');
					return Readable.from(tiny);
				},
			},
		} as unknown as IExecuteFunctions;
		const other = { id: 'database:flaky', mimeType: 'application/pdf', data: '' } as IBinaryData;
		await expect(readBinaryFacts(failing, other)).rejects.toThrow('store down');
		fail = false;
		expect((await readBinaryFacts(failing, other)).size).toBe(4);
		expect(opens).toEqual(['database:tiny', 'again']);
	});

	test('in memory (base64, no id): the same digest as the bytes, head from the first characters, no store opened', async () => {
		const { ctx, opens } = store(file);
		const binary = { data: file.toString('base64'), mimeType: 'application/pdf' } as IBinaryData;
		expect(await readBinaryFacts(ctx, binary)).toEqual({
			head: Uint8Array.from(file.subarray(0, 16)),
			digest: sha,
			size: file.length,
		});
		expect((await readBinaryFacts(ctx, binary)).head).toEqual(
			Uint8Array.from(file.subarray(0, 16)),
		);
		expect(opens).toEqual([]);
	});
});
