/**
 * The candidate's name on the outputs about a report's candidate: invitations (Invite, Invite Many, Reinterview),
 * interviews and their results (Interview > Get, Get Result) and a report's result (Report > Get Result). The API's
 * answers to those carry ids only; the name is in the report summary (spec "Report summary": `candidate.name`, as
 * the analysis read it from the resume). It is never invented, and never taken from an item about another report:
 *
 * 1. the node's input item, when it is about the same report and says the name: an Analyze Resume / Analyze Many /
 *    Start item (`reportId` and `candidateName`), a Report > Get summary (`id` and `candidate.name`) or a
 *    simplified Report > Get Many item (`id` and `candidateName`). A `candidateName` of null there is the
 *    analysis's own answer (it read no name) and is kept, with no read;
 * 2. otherwise one read of the report summary (GET /api/v1/reports/{id}: a read, free of charge), at most one per
 *    report in a node run (the run's other items about that report share it; Invite Many reads a chunk's names
 *    from one report list page, engine/reportPages.ts, and only the reports that page does not show alone);
 * 3. otherwise null: the analysis read no name, or the report could not be read (a key without reports:read, a
 *    deleted report, the API unreachable). The write or read the item is about has happened by then, so a name
 *    that cannot be read never fails the item: a notice says why it is null.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { summariesFromPages } from '../../engine/reportPages';
import { addNotice } from '../../floor/notices';
import { RunSlot } from '../../floor/runState';
import { apiPath, apiErrorInfo } from '../../transport';
import { api } from '../../transport/api';

/** The name as known, or null; undefined when the input item does not say it for this report. */
type Known = string | null | undefined;

const objectOr = (value: unknown): IDataObject | undefined =>
	typeof value === 'object' && value !== null && !Array.isArray(value)
		? (value as IDataObject)
		: undefined;

const nameOf = (value: unknown): Known =>
	typeof value === 'string' && value.trim() !== '' ? value : value === null ? null : undefined;

/** The name a JSON object says for `reportId`, when it is about that report (see 1. above). */
export function nameInItem(json: IDataObject | undefined, reportId: string): Known {
	if (!json) return undefined;
	if (json.reportId === reportId && 'candidateName' in json) return nameOf(json.candidateName);
	if (json.id === reportId) {
		const candidate = objectOr(json.candidate);
		if (candidate && 'name' in candidate) return nameOf(candidate.name);
		if ('candidateName' in json) return nameOf(json.candidateName);
	}
	return undefined;
}

/** The name the node's input item `itemIndex` says for `reportId` (undefined when it says none for it). */
function nameFromInput(ctx: IExecuteFunctions, itemIndex: number, reportId: string): Known {
	let json: IDataObject | undefined;
	try {
		json = ctx.getInputData()[itemIndex]?.json;
	} catch {
		json = undefined;
	}
	return nameInItem(json, reportId);
}

/** This run's names by report: a name read once serves every item about that report. */
const namesRead = new RunSlot('candidate names', () => new Map<string, Promise<string | null>>());

/** The name in a report summary (null when the analysis read none). */
const nameInSummary = (summary: IDataObject | undefined): string | null =>
	nameOf(objectOr(summary?.candidate)?.name) ?? null;

/** A failed read of a name: null, and a notice that says why (the item itself has succeeded). */
function unreadable(ctx: IExecuteFunctions, error: unknown): null {
	addNotice(
		ctx,
		apiErrorInfo(error)?.status === 403 ? 'candidateNameNoScope' : 'candidateNameNotRead',
	);
	return null;
}

/** One read of the report summary for its candidate's name, shared by the run's items about that report. */
async function readName(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reportId: string,
): Promise<string | null> {
	const names = namesRead.of(ctx);
	let name = names.get(reportId);
	if (!name) {
		name = api(ctx, {
			method: 'GET',
			path: apiPath('/api/v1/reports/{}', reportId),
			itemIndex,
		}).then(nameInSummary, (error: unknown) => unreadable(ctx, error));
		names.set(reportId, name);
	}
	return await name;
}

/** The candidate's name for an output about `reportId` made from input item `itemIndex` (see the order above). */
export async function candidateNameFor(
	ctx: IExecuteFunctions,
	itemIndex: number,
	reportId: unknown,
): Promise<string | null> {
	if (typeof reportId !== 'string' || reportId === '') return null;
	const known = nameFromInput(ctx, itemIndex, reportId);
	if (known !== undefined) return known;
	return await readName(ctx, itemIndex, reportId);
}

/**
 * The names of several outputs at once (Invite Many's chunk): the input items' first, then the reports this run
 * has not read yet from one report list page (up to 100 reports a page), then the rest alone.
 */
export async function candidateNamesFor(
	ctx: IExecuteFunctions,
	entries: Array<{ itemIndex: number; reportId: unknown }>,
): Promise<Array<string | null>> {
	const names = namesRead.of(ctx);
	const unknown = entries.filter(
		(e) =>
			typeof e.reportId === 'string' &&
			e.reportId !== '' &&
			nameFromInput(ctx, e.itemIndex, e.reportId) === undefined &&
			!names.has(e.reportId),
	);
	const ids = [...new Set(unknown.map((e) => e.reportId as string))];
	if (ids.length > 1) {
		const listed = await summariesFromPages(ctx, unknown[0].itemIndex, ids).catch(
			(error: unknown) => {
				// Without reports:read no single read would succeed either: no more requests for these names.
				if (apiErrorInfo(error)?.status === 403)
					for (const id of ids) names.set(id, Promise.resolve(unreadable(ctx, error)));
				return new Map<string, IDataObject>();
			},
		);
		for (const [id, summary] of listed) names.set(id, Promise.resolve(nameInSummary(summary)));
	}
	return await Promise.all(
		entries.map(async (e) => await candidateNameFor(ctx, e.itemIndex, e.reportId)),
	);
}

/** `output` with `candidateName` right after its `reportId` (or first when it has none). */
export function withCandidateName(output: IDataObject, name: string | null): IDataObject {
	const entries = Object.entries(output).filter(([key]) => key !== 'candidateName');
	const at = entries.findIndex(([key]) => key === 'reportId');
	entries.splice(at + 1, 0, ['candidateName', name]);
	return Object.fromEntries(entries) as IDataObject;
}
