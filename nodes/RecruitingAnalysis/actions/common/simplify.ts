import type { IDataObject } from 'n8n-workflow';

// A null score means unmeasured, never zero: it stays null.
export function simplifyReportResult(full: IDataObject): IDataObject {
	const result = (full.result ?? null) as IDataObject | null;
	return {
		reportId: full.reportId,
		attemptId: full.attemptId ?? null,
		status: full.status,
		resultRevision: full.resultRevision ?? null,
		score: result ? (result.score ?? null) : null,
		scoreScale: result ? (result.scoreScale ?? null) : null,
		summary: result ? (result.summary ?? null) : null,
		humanReviewRecommendation: result ? (result.humanReviewRecommendation ?? null) : null,
		limitations: result ? (result.limitations ?? null) : null,
	};
}

export function simplifyInterviewResult(full: IDataObject): IDataObject {
	const result = (full.result ?? null) as IDataObject | null;
	return {
		interviewId: full.id,
		reportId: full.reportId,
		lifecycle: full.lifecycle,
		evaluation: full.evaluation,
		resultRevision: full.resultRevision ?? null,
		decision: result ? (result.decision ?? null) : null,
		recommendation: result ? (result.recommendation ?? null) : null,
		summary: result ? (result.summary ?? null) : null,
		scores: result ? (result.scores ?? null) : null,
		limitations: result ? (result.limitations ?? null) : null,
	};
}

export function simplifyJobDescription(job: IDataObject): IDataObject {
	return {
		id: job.id,
		title: job.title,
		company: job.company,
		location: job.location,
		status: job.status,
		revision: job.revision,
		updatedAt: job.updatedAt,
	};
}

export function simplifyReportSummary(report: IDataObject): IDataObject {
	const candidate = (report.candidate ?? {}) as IDataObject;
	const job = (report.jobDescription ?? {}) as IDataObject;
	const result = (report.result ?? null) as IDataObject | null;
	return {
		id: report.id,
		createdAt: report.createdAt,
		status: report.status,
		candidateName: candidate.name ?? null,
		jobTitle: job.title ?? null,
		score: result ? (result.score ?? null) : null,
		summary: result ? (result.summary ?? null) : null,
		...(report.externalReference === undefined
			? {}
			: { externalReference: report.externalReference }),
	};
}

export interface ReportFacts {
	reportId: string | null;
	fileName?: unknown;
	summary?: IDataObject | null;
	result?: IDataObject | null;
	status?: IDataObject | null;
}

const objectOr = (value: unknown): IDataObject | null =>
	typeof value === 'object' && value !== null && !Array.isArray(value)
		? (value as IDataObject)
		: null;

// status is always the report's own; a batch item's admission state goes beside it as analysisState.
export function simplifyReport(facts: ReportFacts): IDataObject {
	const summary = objectOr(facts.summary);
	const full = objectOr(facts.result);
	const result = objectOr(full?.result);
	const summaryResult = objectOr(summary?.result);
	const candidate = objectOr(summary?.candidate);
	const scale = objectOr(result?.scoreScale);
	const job = objectOr(summary?.jobDescription);
	const status = (full?.status ?? summary?.status ?? facts.status?.status ?? null) as string | null;
	const pick = (...values: unknown[]) =>
		values.find((value) => value !== undefined && value !== null) ?? null;
	return {
		candidateName: pick(candidate?.name),
		currentRole: pick(candidate?.currentRole),
		score: pick(result?.score, summaryResult?.score),
		scoreMinimum: pick(scale?.minimum),
		scoreMaximum: pick(scale?.maximum),
		summary: pick(result?.summary, summaryResult?.summary),
		recommendation: pick(result?.humanReviewRecommendation),
		status,
		needsReview: status === 'requires_action',
		reportId: facts.reportId,
		fileName: typeof facts.fileName === 'string' ? facts.fileName : null,
		code: pick(full?.code, summary?.code, facts.status?.code),
		scoreReasoning: pick(result?.scoreReasoning, summaryResult?.scoreReasoning),
		limitations: pick(result?.limitations),
		jobTitle: pick(job?.title),
		attemptId: pick(full?.attemptId, summary?.attemptId, facts.status?.attemptId),
		resultRevision: pick(full?.resultRevision),
	};
}
