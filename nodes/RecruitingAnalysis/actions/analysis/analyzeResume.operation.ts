import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { readReport, readWaitSettings, startAnalysis, waitForStarted } from './startAnalysis';
import {
	binaryPropertyField,
	concurrencyOption,
	expectedRevisionOption,
	jobDescriptionFields,
	optionsCollection,
	resumeFileOptions,
	waitDetailOptions,
	waitForCompletionField,
	simplifyReportsField,
	chargeNotice,
	spendingLimitField,
} from '../common/descriptions';
import { withoutKeys } from '../common/params';
import { readWriteChoice } from '../../writes/identity';
import { checkUpload, UPLOAD_RENEW_STEP, uploadResume } from '../upload/resumeUpload';
import { jobRevisionSince } from '../../writes/jobRevision';
import { Later, type Run } from '../../engine/run';

export const description: INodeProperties[] = [
	chargeNotice('analysis'),
	binaryPropertyField,
	...jobDescriptionFields,
	waitForCompletionField,
	simplifyReportsField('once its analysis has finished (with Wait for Completion)'),
	spendingLimitField,
	optionsCollection([
		concurrencyOption,
		expectedRevisionOption,
		...resumeFileOptions,
		...waitDetailOptions(),
	]),
];

export async function check(this: IExecuteFunctions, itemIndex: number, run: Run) {
	const steps = ['prepare', UPLOAD_RENEW_STEP, 'start', 'start.requote'];
	const write = readWriteChoice(this, itemIndex, steps);
	return {
		upload: await checkUpload(
			this,
			run,
			itemIndex,
			write,
			write.userKey && 'prepare',
			// A label asks Analyze Resume for a new analysis attempt on the same report, not for another report.
			{ labelMakesNewReport: false },
		),
		wait: readWaitSettings(this, itemIndex, true),
	};
}

function inputEmail(json: IDataObject): IDataObject {
	const value = [json.candidateEmail, json.email].find(
		(v) => typeof v === 'string' && v.includes('@'),
	);
	return value === undefined ? {} : { candidateEmail: (value as string).trim() };
}

/** A repeat of the same item reaches the same report, and a report with an attempt is recovered, not started. */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	{ upload: checked, wait }: Awaited<ReturnType<typeof check>>,
	run: Run,
) {
	const { write, input } = checked;
	const uploaded = await uploadResume(this, itemIndex, checked);
	const reportId = String(uploaded.reportId);
	const upload = withoutKeys(uploaded, ['recovered', 'recoveredFrom']);
	const started = await startAnalysis(this, run, itemIndex, reportId, {
		choice: { quoteAutomatically: true },
		write,
		requoteStep: 'start.requote',
		// A fresh upload cannot have an attempt yet: only a recovered one is checked (one read).
		checkExisting: uploaded.alreadyAdmitted === true,
	});
	// The candidate's address from the input item, for the node after (an Invite): reports carry none.
	const email = inputEmail(this.getInputData()[itemIndex]?.json ?? {});
	const output = { ...upload, ...started, ...email };
	if (!wait.waitForCompletion) {
		run.addNotice('noScoreWithoutWaiting');
		// A report an earlier run made (its analysis was already admitted) may predate the saved job's revision.
		if (uploaded.alreadyAdmitted !== true && started.recovered !== true) return output;
		const summary = await readReport(this, itemIndex, reportId);
		return { ...output, ...(await jobRevisionSince(this, run, itemIndex, summary.createdAt)) };
	}
	return new Later(
		waitForStarted(this, run, itemIndex, reportId, started, wait, input.fileName, {
			...(uploaded.sameWriteAs === undefined ? {} : { sameWriteAs: uploaded.sameWriteAs }),
			// The same bytes were uploaded before (under this name or another): say so after waiting too.
			...(uploaded.sameFileAsBefore === true ? { sameFileAsBefore: true } : {}),
			// A recovered start charged nothing, so it has no creditsUsed.
			...(started.creditsUsed === undefined ? {} : { creditsUsed: started.creditsUsed }),
			...email,
		}),
	);
}
