/** POST /api/v1/uploads, POST /api/v1/uploads/{id}/url, DELETE /api/v1/uploads/{id}. */
import type { Ctx } from '../context';
import type { ApiRouter } from '../http';
import { cancelUpload, prepareUpload, refreshUpload } from '../uploads';
import { uploadInput, Validator, type ParsedJobRef } from '../validation';
import { noBody } from './common';

export function uploadRoutes(api: ApiRouter, ctx: Ctx): void {
	api.add({
		method: 'POST',
		path: '/api/v1/uploads',
		scope: 'analyses:write',
		idempotent: true,
		handler: ({ ws, body }) => {
			const v = new Validator();
			const input = uploadInput(v, '', body, true);
			v.throwIfAny();
			return {
				status: 201,
				body: { data: prepareUpload(ctx, ws, input!, input!.jobDescription as ParsedJobRef) },
			};
		},
	});
	api.add({
		method: 'POST',
		path: '/api/v1/uploads/{id}/url',
		scope: 'analyses:write',
		handler: ({ ws, params, body }) => {
			noBody(body);
			return { status: 200, body: { data: refreshUpload(ctx, ws, params.id) } };
		},
	});
	api.add({
		method: 'DELETE',
		path: '/api/v1/uploads/{id}',
		scope: 'analyses:write',
		handler: ({ ws, params, body }) => {
			noBody(body);
			cancelUpload(ctx, ws, params.id);
			return { status: 204 };
		},
	});
}
