import type { IExecuteFunctions } from 'n8n-workflow';

import { Run } from '../../../nodes/RecruitingAnalysis/engine/run';

const runs = new WeakMap<object, Run>();

/** The node run of a fake context: n8n gives each node run its own context, so one fake context stands for one run. */
export function runOf(ctx: IExecuteFunctions): Run {
	let run = runs.get(ctx);
	if (!run) {
		run = new Run(ctx);
		runs.set(ctx, run);
	}
	return run;
}

/** A fresh fake context with its run, as the first two arguments of a function of writes/. */
export function withRun(ctx: IExecuteFunctions): [IExecuteFunctions, Run] {
	return [ctx, runOf(ctx)];
}
