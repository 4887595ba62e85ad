/**
 * Merges made visible: two items of one run whose writes are the same (the same file for the same job, the same
 * invitation) share one resource, and the later item says so with `sameWriteAs` (the earlier item's number as the
 * editor counts, from 1), so two applicants with byte-identical files never silently become one report.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { RunSlot } from '../floor/runState';

const firstItemOfWrite = new RunSlot('first item of each write', () => new Map<string, number>());

/**
 * Notes that `itemIndex` makes the write named `key`; returns the number (from 1) of the item of this run that made
 * the same write first, or undefined when this item is that one. The engine checks every item in order before the
 * first write (engine/run.ts), and the operations call this from their check, so the first is the lowest item.
 */
export function sameWriteAs(
	ctx: IExecuteFunctions,
	key: string,
	itemIndex: number,
): number | undefined {
	const writes = firstItemOfWrite.of(ctx);
	const first = writes.get(key);
	if (first === undefined || first === itemIndex) {
		writes.set(key, itemIndex);
		return undefined;
	}
	return first + 1;
}
