// Two applicants with byte-identical files never silently become one report: the later item says so.
import type { IExecuteFunctions } from 'n8n-workflow';

import { RunSlot } from '../floor/runState';

const firstItemOfWrite = new RunSlot('first item of each write', () => new Map<string, number>());

// The engine checks every item in order before the first write (engine/run.ts), so the first is the lowest item.
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
