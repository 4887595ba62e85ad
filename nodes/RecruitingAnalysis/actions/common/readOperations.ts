import { type IDataObject, type IExecuteFunctions, type INodeProperties } from 'n8n-workflow';

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

const READS = {
	report: { locator: reportLocator, label: 'Report ID' },
	interview: { locator: interviewLocator, label: 'Interview ID' },
};

type ReadResource = keyof typeof READS;

export function getStatusOperation(
	resource: ReadResource,
	notice: INodeProperties,
	notices: (run: Run, status: IDataObject) => void,
) {
	return {
		description: [notice, ...READS[resource].locator(), optionsCollection([concurrencyOption])],
		async execute(this: IExecuteFunctions, itemIndex: number, _checked: unknown, run: Run) {
			const id = idParam(this, `${resource}Id`, itemIndex, READS[resource].label);
			const path = apiPath(`/api/v1/${resource}s/{}/status`, id);
			const status = await api(this, { method: 'GET', path, itemIndex });
			notices(run, status);
			return status;
		},
	};
}

interface ResultRead {
	resource: ReadResource;
	keeps: string;
	notices: (run: Run, result: IDataObject) => void;
	simplified: (result: IDataObject) => IDataObject;
	/** A report's result holds no candidate: the name comes from the input item or the report summary. */
	reportIdOf: (id: string, result: IDataObject) => unknown;
}

export function getResultOperation(read: ResultRead) {
	const { resource } = read;
	return {
		description: [
			unmeasuredNotice,
			...READS[resource].locator(),
			{ ...simplifyField, description: `Whether to keep only ${read.keeps}` },
			optionsCollection([concurrencyOption, schemaVersionOption]),
		],
		async execute(this: IExecuteFunctions, itemIndex: number, _checked: unknown, run: Run) {
			const id = idParam(this, `${resource}Id`, itemIndex, READS[resource].label);
			const asked = optionString(optionsParam(this, itemIndex), 'schemaVersion') ?? '1';
			const schemaVersion = validateSchemaVersion.call(this, asked, itemIndex);
			const simplify = this.getNodeParameter('simplify', itemIndex, false) as boolean;
			const path = apiPath(`/api/v1/${resource}s/{}/result`, id);
			const result = await api(this, { method: 'GET', path, qs: { schemaVersion }, itemIndex });
			read.notices(run, result);
			const name = await candidateNameFor(this, run, itemIndex, read.reportIdOf(id, result));
			return withCandidateName(simplify ? read.simplified(result) : result, name);
		},
	};
}
