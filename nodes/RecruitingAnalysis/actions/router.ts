import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { runNode } from '../engine/run';
import type { OperationModule } from '../engine/types';
import * as analysis from './analysis/Analysis.resource';
import { refuseModelChosenGuardRails } from './common/modelChoices';
import * as event from './event/Event.resource';
import * as interview from './interview/Interview.resource';
import * as jobDescription from './jobDescription/JobDescription.resource';
import * as report from './report/Report.resource';
import * as upload from './upload/Upload.resource';

/** Every resource and its operations; the selector options in each resource file list the same keys (a test checks). */
export const resources: Record<string, Record<string, OperationModule>> = {
	analysis: analysis.operations,
	event: event.operations,
	interview: interview.operations,
	jobDescription: jobDescription.operations,
	report: report.operations,
	upload: upload.operations,
};

/** The action node's execute: every item to its resource's operation, run by the engine (engine/run.ts). */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	refuseModelChosenGuardRails(this);
	return await runNode.call(this, resources);
}
