/**
 * The signed storage destination: PUT /_storage/uploads/{reportId}?expires=&signature=
 * Checks, in order: no Authorization header (counted), the report, signature, expiry, the preparation,
 * Content-Type equal to the declared type, the exact byte size, the content (PDF `%PDF-`; DOCX a ZIP
 * holding `word/document.xml`). 200 with an empty body on success.
 */
import type { FastifyInstance } from 'fastify';
import { unzipSync } from 'fflate';
import type { Ctx } from '../context';
import { sha256Hex } from '../canonical';
import { ApiError, conflict, notFound } from '../errors';
import type { ApiRouter } from '../http';
import { checkSignature, preparationLive } from '../uploads';
import { MAX_FILE_BYTES, PDF_MIME } from '../validation';

export const STORAGE_ROUTE = '/_storage/uploads/{reportId}';

function validContent(bytes: Buffer, mimeType: string): boolean {
	if (mimeType === PDF_MIME) return bytes.subarray(0, 5).toString('latin1') === '%PDF-';
	if (bytes.length < 4 || bytes.readUInt32LE(0) !== 0x04034b50) return false;
	try {
		const files = unzipSync(new Uint8Array(bytes), { filter: (f) => f.name === 'word/document.xml' });
		return !!files['word/document.xml'];
	} catch {
		return false;
	}
}

export function storageRoutes(app: FastifyInstance, api: ApiRouter, ctx: Ctx): void {
	api.remember('PUT', STORAGE_ROUTE);
	app.register(async (scope) => {
		scope.removeAllContentTypeParsers();
		scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_FILE_BYTES + 1024 }, (_req, body, done) => done(null, body));
		scope.route({
			method: 'PUT',
			url: '/_storage/uploads/:reportId',
			bodyLimit: MAX_FILE_BYTES + 1024,
			handler: async (req, reply) => {
				req.routeTemplate = STORAGE_ROUTE;
				const { reportId } = req.params as { reportId: string };
				const query = req.query as Record<string, unknown>;
				const report = ctx.store.reports[reportId];
				if (report) req.workspaceId = report.workspaceId;
				if (req.headers.authorization !== undefined) {
					if (report) ctx.store.countersOf(report.workspaceId).storageAuthorizationHeaders += 1;
					throw new ApiError(400, 'Storage requests must not carry an Authorization header; the API key is never sent to storage.', 'AUTHORIZATION_NOT_ALLOWED');
				}
				if (!report) throw notFound('Upload');
				checkSignature(ctx, reportId, query.expires, query.signature);
				if (report.admitted) throw conflict('ALREADY_ADMITTED', 'An analysis was admitted; the file is frozen.');
				if (!preparationLive(ctx, report)) throw notFound('Upload preparation', 'PREPARATION_EXPIRED');
				const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
				if (contentType !== report.mimeType) {
					throw new ApiError(400, `Content-Type must be ${report.mimeType}, the declared type.`, 'CONTENT_TYPE_MISMATCH');
				}
				const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
				if (bytes.length !== report.fileSize) {
					throw new ApiError(400, `The body has ${bytes.length} bytes; the declared fileSize is ${report.fileSize}.`, 'SIZE_MISMATCH');
				}
				if (!validContent(bytes, report.mimeType)) {
					throw new ApiError(400, 'The content does not match the declared type (PDF must start %PDF-; DOCX must be a ZIP with word/document.xml).', 'CONTENT_INVALID');
				}
				ctx.store.files.set(report.id, bytes);
				report.fileSha256 = sha256Hex(bytes);
				ctx.store.countersOf(report.workspaceId).storagePuts += 1;
				ctx.markDirty();
				return reply.code(200).send();
			},
		});
	});
}
