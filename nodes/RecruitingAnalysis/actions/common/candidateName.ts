// A name is never invented nor taken from another report's item; an unreadable one never fails the item.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiPath, apiErrorInfo, api } from '../../transport';
import type { Run } from '../../engine/run';
import { asObject } from '../../transport/errors';

type Known = string | null | undefined;

const nameOf = (value: unknown): Known =>
	typeof value === 'string' && value.trim() !== '' ? value : value === null ? null : undefined;

function nameFromInput(ctx: IExecuteFunctions, itemIndex: number, reportId: string): Known {
	let json: IDataObject;
	try {
		json = ctx.getInputData()[itemIndex]?.json ?? {};
	} catch {
		return undefined;
	}
	if (json.reportId === reportId && 'candidateName' in json) return nameOf(json.candidateName);
	if (json.id === reportId) {
		const candidate = asObject(json.candidate);
		if (candidate && 'name' in candidate) return nameOf(candidate.name);
		if ('candidateName' in json) return nameOf(json.candidateName);
	}
	return undefined;
}

const nameInSummary = (summary: IDataObject | undefined): string | null =>
	nameOf(asObject(summary?.candidate)?.name) ?? null;

function unreadable(run: Run, error: unknown): null {
	const noScope = apiErrorInfo(error)?.status === 403;
	run.addNotice(noScope ? 'candidateNameNoScope' : 'candidateNameNotRead');
	return null;
}

export async function candidateNameFor(
	ctx: IExecuteFunctions,
	run: Run,
	itemIndex: number,
	reportId: unknown,
): Promise<string | null> {
	if (typeof reportId !== 'string' || reportId === '') return null;
	const known = nameFromInput(ctx, itemIndex, reportId);
	if (known !== undefined) return known;
	let name = run.candidateNames.get(reportId);
	if (!name) {
		const path = apiPath('/api/v1/reports/{}', reportId);
		const read = api(ctx, { method: 'GET', path, itemIndex });
		name = read.then(nameInSummary, (error: unknown) => unreadable(run, error));
		run.candidateNames.set(reportId, name);
	}
	return await name;
}

export async function candidateNamesFor(
	ctx: IExecuteFunctions,
	run: Run,
	entries: Array<{ itemIndex: number; reportId: unknown }>,
): Promise<Array<string | null>> {
	const names = run.candidateNames;
	const unknown = entries.filter(
		(e) =>
			typeof e.reportId === 'string' &&
			e.reportId !== '' &&
			nameFromInput(ctx, e.itemIndex, e.reportId) === undefined &&
			!names.has(e.reportId),
	);
	const ids = [...new Set(unknown.map((e) => e.reportId as string))];
	if (ids.length > 1) {
		const listed = await run.reportPages
			.summaries(unknown[0].itemIndex, ids)
			.catch((error: unknown) => {
				// Without reports:read no single read would succeed either.
				if (apiErrorInfo(error)?.status === 403)
					for (const id of ids) names.set(id, Promise.resolve(unreadable(run, error)));
				return new Map<string, IDataObject>();
			});
		for (const [id, summary] of listed) names.set(id, Promise.resolve(nameInSummary(summary)));
	}
	return await Promise.all(
		entries.map(async (e) => await candidateNameFor(ctx, run, e.itemIndex, e.reportId)),
	);
}

export function withCandidateName(output: IDataObject, name: string | null): IDataObject {
	const entries = Object.entries(output).filter(([key]) => key !== 'candidateName');
	const at = entries.findIndex(([key]) => key === 'reportId');
	entries.splice(at + 1, 0, ['candidateName', name]);
	return Object.fromEntries(entries) as IDataObject;
}
