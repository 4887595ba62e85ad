import { updateDisplayOptions, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { api, apiPath } from '../../transport';
import type { Run } from '../../engine/run';
import { validateSchemaVersion } from '../../validation';
import { candidateNameFor, withCandidateName } from './candidateName';
import { idParam } from './checks';
import {
	concurrencyOption,
	interviewLocator,
	optionsCollection,
	reportLocator,
	schemaVersionOption,
	simplifyField,
	unmeasuredNotice,
} from './descriptions';
import { optionString, optionsParam } from './params';

interface ResultRead {
	resource: 'report' | 'interview';
	keeps: string;
	notices: (run: Run, result: IDataObject) => void;
	simplified: (result: IDataObject) => IDataObject;
	/** A report's result holds no candidate: the name comes from the input item or the report summary. */
	reportIdOf: (id: string, result: IDataObject) => unknown;
}

/** Get Result of Report and Interview: the result in the schema version asked for, with the candidate's name. */
export function getResultOperation(read: ResultRead) {
	const { resource } = read;
	return {
		description: updateDisplayOptions(
			{ show: { resource: [resource], operation: ['getResult'] } },
			[
				unmeasuredNotice,
				...(resource === 'report' ? reportLocator() : interviewLocator()),
				{ ...simplifyField, description: `Whether to keep only ${read.keeps}` },
				optionsCollection([concurrencyOption, schemaVersionOption]),
			],
		),
		async execute(this: IExecuteFunctions, itemIndex: number, _checked: unknown, run: Run) {
			const label = resource === 'report' ? 'Report ID' : 'Interview ID';
			const id = idParam(this, `${resource}Id`, itemIndex, label);
			const schemaVersion = validateSchemaVersion.call(
				this,
				optionString(optionsParam(this, itemIndex), 'schemaVersion') ?? '1',
				itemIndex,
			);
			const simplify = this.getNodeParameter('simplify', itemIndex, false) as boolean;
			const result = await api(this, {
				method: 'GET',
				path: apiPath(`/api/v1/${resource}s/{}/result`, id),
				qs: { schemaVersion },
				itemIndex,
			});
			read.notices(run, result);
			const name = await candidateNameFor(this, run, itemIndex, read.reportIdOf(id, result));
			return withCandidateName(simplify ? read.simplified(result) : result, name);
		},
	};
}
