/**
 * Capacity refusals (PENDING_UPLOAD_LIMIT on a preparation, ACTIVE_ANALYSIS_LIMIT on a start) are waited out
 * within a bound instead of failing the run: the same request (same key, same body) is sent again after a growing
 * pause, and the wait shows in the output (`capacityWaitSeconds`) and n8n's log. A refused request created
 * nothing (no receipt), so repeating it cannot charge twice.
 */
import { sleep, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';

import { hasApiCondition, outcomeOf } from '../transport/conditions';
import { growingDelayMs } from '../transport/retry';

export const CAPACITY_CONDITIONS = ['PENDING_UPLOAD_LIMIT', 'ACTIVE_ANALYSIS_LIMIT'] as const;
/** How long a capacity refusal is waited out at most before it fails the item. */
export const CAPACITY_WAIT_SECONDS = 300;
const FIRST_PAUSE_MS = 500;
const MAX_PAUSE_MS = 10_000;

/** Runs `write`, waiting out capacity refusals (`conditions`) for up to CAPACITY_WAIT_SECONDS; adds capacityWaitSeconds when it waited. */
export async function waitOutCapacity(
	ctx: IExecuteFunctions,
	itemIndex: number,
	write: () => Promise<IDataObject>,
	conditions: readonly string[] = CAPACITY_CONDITIONS,
): Promise<IDataObject> {
	const started = Date.now();
	const deadline = started + CAPACITY_WAIT_SECONDS * 1000;
	for (let refusal = 0; ; refusal++) {
		const outcome = await outcomeOf(write);
		if (outcome.ok) {
			if (refusal === 0) return outcome.value;
			return {
				...outcome.value,
				capacityWaitSeconds: Math.round((Date.now() - started) / 100) / 10,
			};
		}
		const refused = conditions.some((condition) => hasApiCondition(outcome.error, condition));
		if (!refused || Date.now() >= deadline || ctx.getExecutionCancelSignal?.()?.aborted)
			throw outcome.error;
		const pause = Math.min(
			growingDelayMs(refusal, FIRST_PAUSE_MS, MAX_PAUSE_MS),
			Math.max(0, deadline - Date.now()),
		);
		ctx.logger?.info?.(
			`Recruiting Analysis: item ${itemIndex} waits ${pause} ms for workspace capacity (refusal ${refusal + 1})`,
		);
		await sleep(pause);
	}
}
