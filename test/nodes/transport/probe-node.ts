/**
 * A test-only node that exposes the transport to n8n's engine: each input item says which transport function to
 * call and with what; the node outputs the result (or, with On Error: Continue, the error). It runs inside
 * WorkflowExecute like the real action node, so the transport sees a real IExecuteFunctions.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import {
	apiAll,
	apiRequest,
	poll,
	type ApiRequestOptions,
} from '../../../nodes/RecruitingAnalysis/transport';
import {
	putResumeToStorage,
	type UploadTarget,
} from '../../../nodes/RecruitingAnalysis/actions/upload/resumeUpload';
import { idempotencyKeyOf } from '../../../nodes/RecruitingAnalysis/writes/identity';
import { apiProbeDescription } from '../../helpers/api-probe';

export type ProbeCall =
	| { call: 'apiRequest'; options: ApiRequestOptions; keyFor?: string }
	| {
			call: 'apiAll';
			options: ApiRequestOptions & { returnAll: boolean; limit?: number };
	  }
	| { call: 'upload'; reportId: string; upload: UploadTarget; binaryPropertyName?: string }
	| {
			call: 'prepareAndUpload';
			input: IDataObject;
			binaryPropertyName?: string;
	  }
	| {
			call: 'idempotencyKey';
			write: string;
			identity: unknown[];
			userKey?: string;
			attemptLabel?: string;
			step?: string;
	  }
	| { call: 'pollStatus'; reportId: string; timeoutSeconds: number };

export class TransportProbe implements INodeType {
	description = apiProbeDescription(
		'Transport Probe',
		'transportProbe',
		'Test-only: calls the transport',
	);

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const out: INodeExecutionData[] = [];
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			const spec = items[itemIndex].json as unknown as ProbeCall;
			try {
				let result: unknown;
				switch (spec.call) {
					case 'apiRequest': {
						const options = { ...spec.options, itemIndex };
						if (spec.keyFor)
							options.idempotencyKey = idempotencyKeyOf({
								write: spec.keyFor,
								identity: [options.body ?? null],
							});
						result = {
							data: await apiRequest.call(this, options),
							idempotencyKey: options.idempotencyKey ?? null,
						};
						break;
					}
					case 'apiAll':
						result = { items: await apiAll(this, { ...spec.options, itemIndex }) };
						break;
					case 'upload':
						result = await putResumeToStorage.call(this, {
							reportId: spec.reportId,
							upload: spec.upload,
							itemIndex,
							binaryPropertyName: spec.binaryPropertyName ?? 'data',
						});
						break;
					case 'prepareAndUpload': {
						const prepared = await apiRequest.call<
							IExecuteFunctions,
							[ApiRequestOptions],
							Promise<IDataObject>
						>(this, {
							method: 'POST',
							path: '/api/v1/uploads',
							body: spec.input,
							idempotencyKey: idempotencyKeyOf({ write: 'upload', identity: [spec.input] }),
							itemIndex,
						});
						const put = await putResumeToStorage.call(this, {
							reportId: prepared.reportId as string,
							upload: prepared.upload as unknown as UploadTarget,
							itemIndex,
							binaryPropertyName: spec.binaryPropertyName ?? 'data',
						});
						result = { reportId: prepared.reportId, ...put };
						break;
					}
					case 'idempotencyKey':
						result = {
							key: idempotencyKeyOf(spec),
							again: idempotencyKeyOf({ ...spec, identity: [...spec.identity] }),
						};
						break;
					case 'pollStatus': {
						let reads = 0;
						const polled = await poll(this, {
							fetch: async () => {
								reads++;
								return await apiRequest.call<
									IExecuteFunctions,
									[ApiRequestOptions],
									Promise<IDataObject>
								>(this, {
									method: 'GET',
									path: `/api/v1/reports/${encodeURIComponent(spec.reportId)}/status`,
									itemIndex,
								});
							},
							done: (status) =>
								['completed', 'failed', 'requires_action'].includes(
									String((status as IDataObject).status),
								),
							timeoutSeconds: spec.timeoutSeconds,
							initialDelayMs: 20,
							maxDelayMs: 100,
						});
						result = { ...polled, reads };
						break;
					}
				}
				out.push({ json: result as IDataObject, pairedItem: { item: itemIndex } });
			} catch (error) {
				if (this.continueOnFail()) {
					const e = error as Error & {
						description?: string;
						httpCode?: string;
						context?: IDataObject;
					};
					out.push({
						json: {
							error: e.message,
							description: e.description ?? null,
							httpCode: e.httpCode ?? null,
							apiError: (e.context?.apiError as IDataObject | undefined) ?? null,
							itemIndex: (e.context?.itemIndex as number | undefined) ?? null,
							errorClass: e.constructor.name,
						},
						pairedItem: { item: itemIndex },
					});
					continue;
				}
				throw error;
			}
		}
		return [out];
	}
}
