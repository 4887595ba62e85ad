/**
 * The n8n editor in Debian's headless Chromium (driven by playwright-core): log in, add each of our nodes
 * from the node creator, and open the parameter panel of every resource and operation of the action node
 * (read from the node description n8n itself serves) and of both triggers; pick a saved job from the list
 * (open, search, choose) and run Analyze Resume with it. Fails on any uncaught page error, error toast, or a
 * panel that does not render. Screenshots go to test/e2e/artifacts/; `npm run docs:screenshots` also writes
 * the pick list's and every operation's panel to docs/screenshots/.
 */
import { type Page } from 'playwright-core';

import { type WorkflowJson } from '../../scripts/n8n-host';
import {
	docsShot as docsShotOf,
	eventually as eventuallyOn,
	expectNoEditorError as expectNoErrorIn,
	launchEditorBrowser,
	shot as shotOf,
	signIn,
	type EditorBrowser,
} from './browser';
import { NODE_TYPES, bootRealN8n, type RealN8n } from './helpers';

let env: RealN8n;
let browser: EditorBrowser;
let page: Page;

interface NodeDescription {
	name: string;
	displayName: string;
	properties: Array<{
		name: string;
		type: string;
		options?: Array<{ name: string; value: string; action?: string }>;
		displayOptions?: { show?: Record<string, unknown[]> };
	}>;
}

beforeAll(async () => {
	env = await bootRealN8n('e2e-browser');
	browser = await launchEditorBrowser();
	page = browser.page;
}, 300_000);

afterAll(async () => {
	await browser?.close();
	await env?.close();
});

const eventually = <T>(read: () => Promise<T>, ok: (value: T) => boolean) =>
	eventuallyOn(page, read, ok);
const shot = (name: string) => shotOf(page, name);
const expectNoEditorError = (where: string) => expectNoErrorIn(browser, where);

/**
 * Opens a node's panel through the editor's own deep link (/workflow/:id/:nodeId). After the first full load
 * the route changes in place (history + popstate, as the editor's router does), which is five times faster.
 */
async function openNodePanel(workflowId: string, nodeId: string, fullLoad: boolean): Promise<void> {
	const path = `/workflow/${workflowId}/${nodeId}`;
	if (fullLoad) {
		// The panel showing is the condition; the page's load event adds nothing to it (and can lag under load).
		await page.goto(`${env.n8n.baseUrl}${path}`, { waitUntil: 'domcontentloaded' });
	} else {
		await page.evaluate(
			`window.history.pushState({}, '', ${JSON.stringify(path)}); window.dispatchEvent(new PopStateEvent('popstate', { state: {} }));`,
		);
	}
	await page
		.locator('[data-test-id="ndv"] [data-test-id="node-parameters"]')
		.waitFor({ state: 'visible', timeout: 30_000 });
}

async function closePanel(): Promise<void> {
	// n8n 2.x closes the panel with a button at its top; n8n 1.x with "Back to canvas".
	await page
		.locator('[data-test-id="ndv-close-button"], [data-test-id="back-to-canvas"]')
		.first()
		.click();
	await page
		.locator('[data-test-id="ndv"] [data-test-id="node-parameters"]')
		.waitFor({ state: 'hidden', timeout: 10_000 });
}

test('logs in through the sign-in page', async () => {
	await signIn(browser, env);
	await shot('01-after-login');
	await expectNoEditorError('after login');
});

async function openCreatorAndSearch(
	button: 'canvas-add-button' | 'node-creator-plus-button',
): Promise<void> {
	await page.locator(`[data-test-id="${button}"]`).click();
	const search = page
		.locator(
			'[data-test-id="node-creator-search-bar"] input, input[data-test-id="node-creator-search-bar"]',
		)
		.first();
	await search.waitFor();
	await search.click();
	await page.keyboard.type('Recruiting Analysis');
	await page
		.locator('[data-test-id="node-creator-item-name"]', { hasText: 'Recruiting Analysis' })
		.first()
		.waitFor();
}

async function pickCreatorItem(name: string, description?: RegExp): Promise<void> {
	const items = page.locator('[data-test-id="item-iterator-item"]').filter({
		has: page.locator('[data-test-id="node-creator-item-name"]', {
			hasText: new RegExp(`^\\s*${name}\\s*$`),
		}),
	});
	const item = (description ? items.filter({ hasText: description }) : items).first();
	try {
		await item.waitFor({ timeout: 10_000 });
	} catch {
		// Say what the node creator offered instead (e.g. a codex category that hides a trigger).
		const offered = await page.$$eval('[data-test-id="item-iterator-item"]', (els) =>
			els.map((e) => (e.textContent ?? '').replace(/\s+/g, ' ').trim()),
		);
		expect({ wanted: `${name} ${description ?? ''}`.trim(), offered }).toEqual({
			wanted: 'an item the node creator offers',
			offered,
		});
	}
	await item.click();
}

test('Settings > Community nodes lists the package', async () => {
	await page.goto(`${env.n8n.baseUrl}/settings/community-nodes`);
	const card = page.getByText('n8n-nodes-recruiting-analysis', { exact: false }).first();
	try {
		await card.waitFor({ timeout: 30_000 });
	} finally {
		await shot('01b-community-nodes');
	}
	await expectNoEditorError('community nodes settings');
});

test('adds each of our nodes from the node creator', async () => {
	// The webhook trigger (listed as "Recruiting Analysis" among triggers), then the action node after it.
	await page.goto(`${env.n8n.baseUrl}/workflow/new`);
	await openCreatorAndSearch('canvas-add-button');
	await shot('02-node-creator-triggers');
	// n8n lists the webhook trigger under the app's name; its event types appear as the trigger's choices. n8n 1.x's
	// creator shows no description under the name (among triggers only, the name alone is the webhook trigger).
	await pickCreatorItem('Recruiting Analysis', env.line === '1' ? undefined : /webhook events/i);
	await page
		.locator('[data-test-id="item-iterator-item"]', { hasText: 'On report result ready' })
		.first()
		.click();
	await page
		.locator('[data-test-id="ndv"] [data-test-id="parameter-input-events"]')
		.waitFor({ timeout: 30_000 });
	await shot('03-webhook-trigger-panel');
	await expectNoEditorError('webhook trigger added');
	await closePanel();

	await openCreatorAndSearch('node-creator-plus-button');
	await pickCreatorItem('Recruiting Analysis');
	const action = page
		.locator('[data-test-id="item-iterator-item"]', {
			// The short action, nothing after it: what it costs is on the panel, not in the node's name.
			hasText: /^\s*Analyze a resume\s*$/,
		})
		.first();
	await action.waitFor({ timeout: 30_000 });
	await shot('04-node-creator-actions');
	await action.click();
	await page.locator('[data-test-id="parameter-input-operation"]').waitFor({ timeout: 30_000 });
	expect(
		await page.locator('[data-test-id="parameter-input-operation"] input').first().inputValue(),
	).toBe('Analyze Resume');
	await shot('05-analyze-resume-panel');
	await expectNoEditorError('action node added');
	await closePanel();

	// The feed trigger, in a workflow of its own.
	await page.goto(`${env.n8n.baseUrl}/workflow/new`);
	await openCreatorAndSearch('canvas-add-button');
	await pickCreatorItem('Recruiting Analysis Feed');
	// Like the webhook trigger, the feed trigger may offer its event types as choices first.
	const feedPanel = page.locator('[data-test-id="ndv"] [data-test-id="parameter-input-startAt"]');
	const firstChoice = page
		.locator('[data-test-id="item-iterator-item"]', { hasText: /^\s*On / })
		.first();
	await feedPanel.or(firstChoice).first().waitFor({ timeout: 30_000 });
	if (!(await feedPanel.isVisible())) {
		await shot('06-node-creator-feed-choices');
		await firstChoice.click();
	}
	await feedPanel.waitFor({ timeout: 30_000 });
	await shot('07-feed-trigger-panel');
	await expectNoEditorError('feed trigger added');
	await closePanel();

	const types = await page.$$eval('[data-test-id="canvas-node"]', (els) =>
		els.map((e) => e.getAttribute('data-node-type')),
	);
	expect(types).toEqual([NODE_TYPES.feed]);
});

test('opens the parameter panel of every resource and operation, and of both triggers', async () => {
	const descriptions = (await env.n8n.nodeTypes()) as unknown as NodeDescription[];
	const action = descriptions.find((d) => d.name === NODE_TYPES.action);
	expect(action).toBeDefined();
	// n8n appends its own "Custom API Call" resource (__CUSTOM_API_CALL__) to nodes with a generic credential.
	const resources = action!.properties
		.find((p) => p.name === 'resource')!
		.options!.filter((o) => !o.value.startsWith('__'));
	expect(resources.length).toBeGreaterThanOrEqual(6);
	const combos: Array<{
		resource: { name: string; value: string };
		operation: { name: string; value: string };
	}> = [];
	for (const resource of resources) {
		const operationProperty = action!.properties.find(
			(p) =>
				p.name === 'operation' && (p.displayOptions?.show?.resource ?? []).includes(resource.value),
		);
		expect({
			resource: resource.value,
			hasOperations: Boolean(operationProperty?.options?.length),
		}).toEqual({
			resource: resource.value,
			hasOperations: true,
		});
		for (const operation of operationProperty!.options!) combos.push({ resource, operation });
	}
	const nodes: WorkflowJson['nodes'] = combos.map(({ resource, operation }, i) => ({
		id: `op-${resource.value}-${operation.value}`,
		name: `${resource.name}: ${operation.name}`,
		type: NODE_TYPES.action,
		typeVersion: 1,
		position: [(i % 6) * 260, Math.floor(i / 6) * 200],
		parameters: { resource: resource.value, operation: operation.value },
		credentials: { recruitingAnalysisApi: env.credentials.recruitingAnalysisApi },
	}));
	nodes.push(
		{
			id: 'trigger-webhook',
			name: 'Webhook Trigger',
			type: NODE_TYPES.trigger,
			typeVersion: 2,
			position: [0, -300],
			parameters: {},
			webhookId: 'a1d6a2c2-7c43-4d8e-9b7e-browser-test',
			credentials: {
				recruitingAnalysisSigningSecretApi: env.credentials.recruitingAnalysisSigningSecretApi,
			},
		},
		{
			id: 'trigger-feed',
			name: 'Feed Trigger',
			type: NODE_TYPES.feed,
			typeVersion: 1,
			position: [300, -300],
			parameters: {},
			credentials: { recruitingAnalysisApi: env.credentials.recruitingAnalysisApi },
		},
	);
	const { id } = await env.n8n.createWorkflow({
		name: 'Every operation',
		nodes,
		connections: {},
		settings: { executionOrder: 'v1' },
	});

	const shownValue = async (parameter: string, expected: string) => {
		// The panel of the previous node may still be on screen for a moment after the route changed.
		const input = page
			.locator(`[data-test-id="ndv"] [data-test-id="parameter-input-${parameter}"] input`)
			.first();
		expect(
			await eventually(
				async () => await input.inputValue(),
				(v) => v === expected,
			),
		).toBe(expected);
	};
	// The docs show each panel whole: a taller window for them, so that no field is cut off at the bottom.
	if (process.env.RA_DOCS_SCREENSHOTS === '1')
		await page.setViewportSize({ width: 1440, height: 1500 });
	for (const [i, { resource, operation }] of combos.entries()) {
		const where = `${resource.value}/${operation.value}`;
		await openNodePanel(id, `op-${resource.value}-${operation.value}`, i === 0);
		await shownValue('resource', resource.name);
		await shownValue('operation', operation.name);
		const title = `${resource.name}: ${operation.name}`;
		const shownTitle = await eventually(
			async () =>
				(
					await page
						.locator('[data-test-id="ndv"] [data-test-id="node-title-container"]')
						.allInnerTexts()
				).join(' '),
			(text) => text.includes(title),
		);
		expect(shownTitle).toContain(title);
		// The panel's middle column (parameters), where the recruiter sets the operation up: docs/operations.md shows it.
		// The panel's middle column (parameters), where the recruiter sets the operation up, down to its last field:
		// docs/operations.md shows it.
		const column = await page
			.locator('[data-test-id="ndv"] [data-test-id="node-parameters"]')
			.locator('xpath=ancestor::*[.//*[@data-test-id="tab-params"]][1]')
			.boundingBox();
		const fields = await page
			.locator(
				'[data-test-id="ndv"] [data-test-id="node-parameters"] [data-test-id="parameter-item"]',
			)
			.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().bottom));
		const bottom = Math.max(...fields);
		expect(column).not.toBeNull();
		await docsShotOf(
			page,
			env,
			`panel-${resource.value}-${operation.value}`,
			`nodes/RecruitingAnalysis/actions/${resource.value}/${operation.value}.operation.ts`,
			{
				clip: {
					x: column!.x,
					y: column!.y,
					width: column!.width,
					height: Math.min(column!.height, bottom - column!.y + 16),
				},
			},
		);
		await expectNoEditorError(where);
	}
	for (const [nodeId, parameter] of [
		['trigger-webhook', 'events'],
		['trigger-feed', 'startAt'],
	] as const) {
		await openNodePanel(id, nodeId, false);
		await page
			.locator(`[data-test-id="ndv"] [data-test-id="parameter-input-${parameter}"]`)
			.waitFor();
		await shot(`ndv-${nodeId}`);
		await expectNoEditorError(nodeId);
	}
	expect(combos.length).toBeGreaterThanOrEqual(30);
});

test('picks a saved job From List (open, search, choose) and runs Analyze Resume with it', async () => {
	// Two more saved jobs in the sandbox's seeded workspace, so that the search has something to tell apart.
	const createJob = async (fields: Record<string, string>) => {
		const res = await fetch(
			`${env.sandbox.baseUrl}/_sandbox/workspaces/${env.sandbox.seed.workspaceId}/job-descriptions`,
			{
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify(fields),
			},
		);
		expect(res.status).toBeLessThan(300);
		return (await res.json()) as { id: string };
	};
	const chosen = await createJob({ title: 'Data Engineer', company: 'Globex', location: 'Lisbon' });
	await createJob({ title: 'Product Designer', company: 'Initech', location: 'Berlin' });

	// The "analyze one resume" example, its Analyze Resume node against a saved job not yet chosen.
	const { id } = await env.importExample('analyze-one-resume.json', (wf) => {
		const node = wf.nodes.find((n) => n.name === 'Analyze Resume')!;
		node.id = 'analyze';
		const { jobDescriptionText: _text, ...rest } = node.parameters as Record<string, unknown>;
		void _text;
		node.parameters = {
			...rest,
			jobDescriptionSource: 'existing',
			jobDescriptionId: { __rl: true, mode: 'list', value: '' },
		};
	});
	await openNodePanel(id, 'analyze', true);
	const locator = page.locator(
		'[data-test-id="ndv"] [data-test-id="resource-locator-jobDescriptionId"]',
	);
	await locator.locator('[data-test-id="rlc-input"]').first().click();
	const items = page.locator('[data-test-id="rlc-item"]');
	expect(
		await eventually(
			async () => await items.count(),
			(n) => n >= 3,
		),
	).toBeGreaterThanOrEqual(3);
	await page
		.locator('[data-test-id="rlc-search"] input, input[data-test-id="rlc-search"]')
		.first()
		.fill('globex');
	const shown = await eventually(
		async () => await items.allInnerTexts(),
		(texts) => texts.length === 1,
	);
	expect(shown.map((t) => t.trim())).toEqual(['Data Engineer — Globex, Lisbon']);
	await docsShotOf(
		page,
		env,
		'saved-job-pick-list',
		'nodes/RecruitingAnalysis/actions/analysis/analyzeResume.operation.ts',
	);
	await items.first().click();
	const picked = await eventually(
		async () =>
			await locator
				.locator('[data-test-id="rlc-input"] input, input[data-test-id="rlc-input"]')
				.first()
				.inputValue(),
		(value) => value.includes('Data Engineer'),
	);
	expect(picked).toContain('Data Engineer — Globex, Lisbon');
	await expectNoEditorError('saved job picked');

	// Run the node (n8n runs the Code node before it): the report is made against the chosen job.
	await page.locator('[data-test-id="ndv"] [data-test-id="node-execute-button"]').first().click();
	await page
		.locator('[data-test-id="ndv"]')
		.getByText(/rpt_/)
		.first()
		.waitFor({ timeout: 120_000 });
	await shot('saved-job-run-output');
	const res = await fetch(`${env.sandbox.baseUrl}/api/v1/reports?limit=1`, {
		headers: { authorization: `Bearer ${env.sandbox.seed.apiKey}` },
	});
	const latest = (
		(await res.json()) as {
			data: { items: Array<{ jobDescription: { id: string; title: string } }> };
		}
	).data.items[0];
	expect(latest.jobDescription).toMatchObject({ id: chosen.id, title: 'Data Engineer' });
	await expectNoEditorError('Analyze Resume run with the picked job');
	await closePanel();
});

test('shows the "analyze one resume" example on the canvas', async () => {
	const { id } = await env.importExample('analyze-one-resume.json');
	await page.goto(`${env.n8n.baseUrl}/workflow/${id}`);
	await page.locator('[data-test-id="canvas-node"]').first().waitFor();
	const names = await page.$$eval('[data-test-id="canvas-node"]', (els) =>
		els.map((e) => e.getAttribute('data-node-name')),
	);
	expect(names).toEqual(
		expect.arrayContaining(['Analyze Resume', 'Invite to Interview', 'Score Clears Threshold?']),
	);
	await page.locator('[data-test-id="zoom-to-fit"]').click();
	await page.waitForTimeout(500);
	await shot('08-example-analyze-one-resume');
	await expectNoEditorError('example canvas');
});
