import type { IDataObject } from 'n8n-workflow';

/**
 * The Simplify view of a report result: identity, then score with its scale, summary, the human review
 * recommendation and the limitations (spec: read the scale and the limitations before showing a score).
 * A null result or a null score stays null: it means unmeasured, never zero.
 */
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

/** The Simplify view of an interview result: lifecycle axes, decision, recommendation, summary, scores, limitations. */
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

/** The Simplify view of a saved job in a list: what tells jobs apart, without the description text. */
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

/** The Simplify view of a report summary in a list: candidate, job, status and score, without the reasoning text. */
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
		...(report.externalReference === undefined ? {} : { externalReference: report.externalReference }),
	};
}
