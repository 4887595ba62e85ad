import {
	updateDisplayOptions,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';

import { runNode, type OperationModule } from '../engine/run';
import * as analysis from './analysis/Analysis.resource';
import { refuseModelChosenGuardRails } from './common/modelChoices';
import * as event from './event/Event.resource';
import * as interview from './interview/Interview.resource';
import * as jobDescription from './jobDescription/JobDescription.resource';
import * as report from './report/Report.resource';
import { refuseUnreviewedToolCall, toolCosts } from './common/toolMode';
import * as upload from './upload/Upload.resource';

/** Each operation's own fields show only for it, so their order in the panel changes nothing. */
function shownPerOperation(resource: string, operations: Record<string, OperationModule>) {
	return Object.fromEntries(
		Object.entries(operations).map(([operation, module]) => [
			operation,
			{
				...module,
				description: updateDisplayOptions(
					{ show: { resource: [resource], operation: [operation] } },
					module.description,
				),
			},
		]),
	);
}

export const resources: Record<string, Record<string, OperationModule>> = {
	analysis: shownPerOperation('analysis', analysis.operations),
	event: shownPerOperation('event', event.operations),
	interview: shownPerOperation('interview', interview.operations),
	jobDescription: shownPerOperation('jobDescription', jobDescription.operations),
	report: shownPerOperation('report', report.operations),
	upload: upload.operations,
};

const fieldsOf = (resource: string) =>
	Object.values(resources[resource]).flatMap((operation) => operation.description);

export const operationProperties = [
	analysis.selector,
	...fieldsOf('analysis'),
	...upload.description,
	report.selector,
	...fieldsOf('report'),
	interview.selector,
	...fieldsOf('interview'),
	jobDescription.selector,
	...fieldsOf('jobDescription'),
	event.selector,
	...fieldsOf('event'),
];

const costs = toolCosts(operationProperties);

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	refuseModelChosenGuardRails(this);
	refuseUnreviewedToolCall(this, costs);
	return await runNode.call(this, resources);
}
