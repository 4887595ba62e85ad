/**
 * Option and operation names. Rule: a phrase in *italics*, or in **bold** when it has two words or more and is not a
 * run-in heading (followed by a colon, or ending with a full stop), outside code, that has the shape of a display name
 * (it starts with a capital letter, at most seven words, each word capitalised or a short joining word such as "for",
 * "per", "a"; parts joined by `→` or `>` are read one by one, as in *Options → Spending Limit (Credits)* or
 * *Analysis → Start*) must be a name the package shows: a parameter, option, choice, resource or operation of the
 * action node, either trigger or either credential, read from their description objects; the name of a node of an
 * example workflow; or one of n8n's own labels listed below (the editor's and its own nodes', not ours). A name may
 * leave out its trailing unit in parentheses (*Wait Timeout* for "Wait Timeout (Seconds)"), a node or credential
 * may leave out "Recruiting Analysis " (*Feed Trigger*), the action node's Tool variant is its name and " Tool", and a
 * parameter may be followed by one of its choices (*Delivery: Email*, *Start From Now*). Anything else in that shape
 * is a misspelt or retired name.
 */
import type { ICredentialType, INodeProperties, INodeTypeDescription } from 'n8n-workflow';

import { lineAt, proseOnly, type Problem } from './problems';

/** Labels of n8n itself (its editor, its own nodes' options) that the docs quote; none of them is ours. */
export const N8N_LABELS = [
	'Execute workflow',
	'Execute Workflow',
	'Execute step',
	'Settings',
	'Community Nodes',
	'Install',
	'Update',
	'Uninstall',
	'Options',
	'Workflow',
	'Import from File',
	'Save Execution Progress',
	'On Error',
	'Continue',
	'Continue (using error output)',
	'Retry On Fail',
	'Continue On Fail',
	'Human review',
	'Human in the Loop',
	'Tool',
	'Tools',
	'Max Iterations',
	'History Size',
	'Approve',
	'Decline',
	'Yes',
	'No',
	'Test',
	'Production URL',
	'Test URL',
	'Executions',
	'Developer',
	'API keys',
	'Webhooks',
	'Send test',
	'Fetch Test Event',
	'Listen for test event',
	'Tool Description',
	'Set Automatically',
	'Trusted publishing',
	'Added',
	'Changed',
	'Fixed',
	'Removed',
	'Security',
	'Deprecated',
	'Unreleased',
	'Waiting',
	'Workflows',
	'Create',
	// n8n's own nodes and their options, as the examples and docs use them.
	'Wait',
	'IF',
	'Switch',
	'Filter',
	'Webhook',
	'Code',
	'Set',
	'Merge',
	'Form',
	'Convert to File',
	'Read/Write Files from Disk',
	'Loop Over Items',
	'Remove Duplicates',
	'HTTP Request',
	'AI Agent',
	'Chat Trigger',
	'Query Parameters',
	'Resume',
	'On Form Submitted',
	'OpenAI Chat Model',
	'OpenAI',
	'Chat',
	'When Last Node Finishes',
	'Form Ending',
	// The button of the examples' own form pages.
	'OK',
];

type Options = INodeProperties['options'];

/** Every name a description shows: parameters, options inside collections, choices, resource locator modes. */
function namesOfProperties(properties: INodeProperties[], into: Set<string>): void {
	for (const p of properties) {
		into.add(p.displayName);
		for (const mode of (p as { modes?: Array<{ displayName?: string }> }).modes ?? []) {
			if (mode.displayName) into.add(mode.displayName);
		}
		for (const o of (p.options ?? []) as NonNullable<Options>) {
			if ('type' in o) namesOfProperties([o as INodeProperties], into);
			else if ('values' in o) {
				into.add(o.displayName);
				namesOfProperties(o.values, into);
			} else if ('name' in o && typeof o.name === 'string') into.add(o.name);
		}
	}
}

/** The names the package shows, from the nodes' and credentials' description objects. */
export function packageNames(
	nodes: INodeTypeDescription[],
	credentials: Array<Pick<ICredentialType, 'displayName' | 'properties'>>,
): Set<string> {
	const names = new Set<string>();
	for (const node of nodes) {
		names.add(node.displayName);
		if (node.usableAsTool) names.add(`${node.displayName} Tool`);
		namesOfProperties(node.properties, names);
	}
	for (const credential of credentials) {
		names.add(credential.displayName);
		namesOfProperties(credential.properties, names);
	}
	for (const name of [...names]) {
		names.add(name.replace(/ \([^)]*\)$/, ''));
		if (name.startsWith('Recruiting Analysis '))
			names.add(name.slice('Recruiting Analysis '.length));
	}
	return names;
}

const JOINERS = new Set(
	'a an the of for per in on to from and or by with without after before as at into is'.split(' '),
);

/** Whether an emphasised phrase has the shape of a display name. */
export function looksLikeName(phrase: string): boolean {
	const words = phrase.split(' ');
	if (words.length > 7 || !/^[A-Z]/.test(phrase)) return false;
	return words.every(
		(w, i) =>
			/^\(?[A-Z0-9][\w'’.-]*\)?:?$/.test(w) || (i > 0 && JOINERS.has(w.replace(/[():]/g, ''))),
	);
}

export interface NameInput {
	docs: Record<string, string>;
	/** Every name the package, the examples and n8n show. */
	known: Set<string>;
}

export function checkNames({ docs, known }: NameInput): Problem[] {
	const problems: Problem[] = [];
	for (const [doc, text] of Object.entries(docs)) {
		const prose = proseOnly(text);
		for (const m of prose.matchAll(/(\*\*|\*)(?!\s)([^*]+?)(?<!\s)\1(?!\*)(:?)/g)) {
			const phrase = m[2].replace(/\s+/g, ' ');
			const bold = m[1] === '**';
			if (bold && (!phrase.includes(' ') || m[3] === ':' || phrase.endsWith('.'))) continue;
			const parts = phrase
				.split(/\s*(?:→|>)\s*/)
				.map((part) => part.replace(/[:.,;]$/, '').trim())
				.filter((part) => part !== '');
			for (const part of parts) {
				// "Delivery: Email" names a parameter and its choice.
				const pieces = part.includes(': ') ? part.split(': ') : [part];
				if (!pieces.every(looksLikeName)) continue;
				const unknown = pieces.filter((piece) => !isKnown(piece, known));
				if (unknown.length === 0) continue;
				problems.push({
					file: doc,
					line: lineAt(text, m.index),
					rule: 'quoted name exists',
					message: `quotes ${m[1]}${phrase}${m[1]}, but no node, credential, example or n8n label is named "${unknown.join('", "')}"`,
				});
			}
		}
	}
	return problems;
}

/** A known name, or a known parameter followed by one of its choices ("Start From Now"). */
function isKnown(piece: string, known: Set<string>): boolean {
	if (known.has(piece)) return true;
	const words = piece.split(' ');
	for (let i = 1; i < words.length; i++) {
		if (known.has(words.slice(0, i).join(' ')) && known.has(words.slice(i).join(' '))) return true;
	}
	return false;
}
