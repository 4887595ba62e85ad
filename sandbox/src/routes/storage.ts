/**
 * The signed storage destination: PUT /_storage/uploads/{reportId}?expires=&signature=
 *
 * It answers as real signed object storage does (S3 style), not as the API: errors are 403 or 400 with an
 * XML `<Error>` body (Code, Message, RequestId, HostId) and `x-amz-request-id`, never the API's JSON error
 * body, `X-Request-Id` or `Cache-Control`; success is 200 with an empty body and an `ETag`. The signature
 * covers the report, the expiry and the declared Content-Type, so a different type is a signature mismatch.
 * Checks, in order: no Authorization header (400 InvalidArgument, counted), the query-string signature
 * (403 AccessDenied / SignatureDoesNotMatch), the expiry (403 AccessDenied "Request has expired"), the
 * preparation (403 AccessDenied once cancelled, expired or admitted), the exact byte size
 * (400 EntityTooSmall / EntityTooLarge). Storage does not read the content: a file that is not the declared
 * PDF or DOCX is refused at admission (422 INVALID_UPLOAD), as the real service does.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../context';
import { sha256Hex } from '../canonical';
import type { ApiRouter } from '../http';
import { preparationLive, storageSignature } from '../uploads';
import { MAX_FILE_BYTES } from '../validation';
import { sendStorageError, signatureDoesNotMatch, StorageError } from '../storageErrors';

export const STORAGE_ROUTE = '/_storage/uploads/{reportId}';
/** Largest body storage reads before answering EntityTooLarge (the biggest resume plus slack). */
const STORAGE_BODY_LIMIT = MAX_FILE_BYTES + 1024;

/** The query-string signature: present, matching the report, expiry and Content-Type, and not expired. */
function checkSignature(
	ctx: Ctx,
	reportId: string,
	contentType: string,
	expires: unknown,
	signature: unknown,
): void {
	if (typeof expires !== 'string' || typeof signature !== 'string') {
		throw new StorageError(
			403,
			'AccessDenied',
			'Query-string authentication requires the Signature and Expires parameters',
		);
	}
	if (!/^\d{1,16}$/.test(expires)) throw signatureDoesNotMatch();
	const expected = Buffer.from(
		storageSignature(ctx, { id: reportId, mimeType: contentType }, Number(expires)),
	);
	const given = Buffer.from(signature);
	if (expected.length !== given.length || !timingSafeEqual(expected, given))
		throw signatureDoesNotMatch();
	const now = ctx.clock.now();
	if (Number(expires) <= now) {
		throw new StorageError(403, 'AccessDenied', 'Request has expired', {
			Expires: new Date(Number(expires)).toISOString(),
			ServerTime: new Date(now).toISOString(),
		});
	}
}

export function storageRoutes(app: FastifyInstance, api: ApiRouter, ctx: Ctx): void {
	api.remember('PUT', STORAGE_ROUTE);
	app.register(async (scope) => {
		scope.removeAllContentTypeParsers();
		scope.addContentTypeParser(
			'*',
			{ parseAs: 'buffer', bodyLimit: STORAGE_BODY_LIMIT },
			(_req, body, done) => done(null, body),
		);
		scope.setErrorHandler((err, _req, reply) => {
			if (err instanceof StorageError) return sendStorageError(reply, err);
			const code = (err as { code?: string }).code;
			if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
				return sendStorageError(
					reply,
					new StorageError(
						400,
						'EntityTooLarge',
						'Your proposed upload exceeds the maximum allowed size.',
					),
				);
			}
			if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
				return sendStorageError(reply, signatureDoesNotMatch());
			console.error('[sandbox] unexpected storage error', err);
			return sendStorageError(
				reply,
				new StorageError(
					500,
					'InternalError',
					'We encountered an internal error. Please try again.',
				),
			);
		});
		scope.route({
			method: 'PUT',
			url: '/_storage/uploads/:reportId',
			bodyLimit: STORAGE_BODY_LIMIT,
			handler: async (req, reply) => {
				req.routeTemplate = STORAGE_ROUTE;
				const { reportId } = req.params as { reportId: string };
				const query = req.query as Record<string, unknown>;
				const report = ctx.store.reports[reportId];
				if (report) req.workspaceId = report.workspaceId;
				if (req.headers.authorization !== undefined) {
					if (report) ctx.store.countersOf(report.workspaceId).storageAuthorizationHeaders += 1;
					throw new StorageError(
						400,
						'InvalidArgument',
						'Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified',
						{ ArgumentName: 'Authorization', ArgumentValue: 'Bearer ***' },
					);
				}
				const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
				checkSignature(ctx, reportId, contentType, query.expires, query.signature);
				if (!report || !preparationLive(ctx, report)) {
					// Cancelled, past its 24 hours, admitted (the file is frozen) or erased: the destination is closed.
					throw new StorageError(403, 'AccessDenied', 'Access Denied');
				}
				const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
				if (bytes.length !== report.fileSize) {
					const larger = bytes.length > report.fileSize;
					throw new StorageError(
						400,
						larger ? 'EntityTooLarge' : 'EntityTooSmall',
						larger
							? 'Your proposed upload exceeds the maximum allowed size.'
							: 'Your proposed upload is smaller than the minimum allowed size.',
						{
							ProposedSize: String(bytes.length),
							[larger ? 'MaxSizeAllowed' : 'MinSizeAllowed']: String(report.fileSize),
						},
					);
				}
				ctx.store.files.set(report.id, bytes);
				report.fileSha256 = sha256Hex(bytes);
				ctx.store.countersOf(report.workspaceId).storagePuts += 1;
				ctx.markDirty();
				const etag = `"${createHash('md5').update(bytes).digest('hex')}"`;
				return reply
					.code(200)
					.header('ETag', etag)
					.header('x-amz-request-id', randomBytes(8).toString('hex').toUpperCase())
					.send();
			},
		});
	});
}
