/** POST /api/v1/analysis-quotes and POST /api/v1/analyses. */
import type { Ctx } from '../context';
import type { ApiRouter } from '../http';
import { quoteAnalysis, startAnalysis } from '../analyses';
import { Validator } from '../validation';

export function analysisRoutes(api: ApiRouter, ctx: Ctx): void {
	api.add({
		method: 'POST',
		path: '/api/v1/analysis-quotes',
		scope: 'analyses:write',
		handler: ({ ws, body }) => {
			const v = new Validator();
			const o = v.object('', body, ['reportId']);
			const reportId = o && v.string('reportId', o.reportId, { min: 1, max: 100 });
			v.throwIfAny();
			return { status: 200, body: { data: quoteAnalysis(ctx, ws, reportId!) } };
		},
	});
	api.add({
		method: 'POST',
		path: '/api/v1/analyses',
		scope: 'analyses:write',
		idempotent: true,
		handler: ({ ws, body }) => {
			const v = new Validator();
			const o = v.object('', body, ['reportId', 'quoteFingerprint']);
			const reportId = o && v.string('reportId', o.reportId, { min: 1, max: 100 });
			const fp =
				o && v.string('quoteFingerprint', o.quoteFingerprint, { pattern: /^[a-f0-9]{64}$/ });
			v.throwIfAny();
			const res = startAnalysis(ctx, ws, reportId!, fp!);
			return {
				status: 202,
				body: { data: { ...res, statusUrl: `/api/v1/reports/${res.reportId}/status` } },
			};
		},
	});
}
