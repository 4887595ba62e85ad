/**
 * The n8n editor in Debian's Chromium headless shell (package chromium-headless-shell: the same Chromium build
 * without the desktop browser around it, a sixth less CPU per page load than `chromium --headless`; driven by
 * playwright-core), for the browser tests
 * (test/e2e/editor.browser.test.ts, test/e2e/examples.browser.test.ts): a fresh profile, loopback only (anything
 * else the editor tries to reach fails and is recorded), uncaught page errors collected, the sign-in page, and
 * the check that the editor shows no error. Screenshots go to test/e2e/artifacts/; `npm run docs:screenshots`
 * (RA_DOCS_SCREENSHOTS=1) also writes the ones the docs show to docs/screenshots/, with the source each shows and
 * its digest in docs/screenshots/sources.json.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';

import { DEFAULT_OWNER, REPO_ROOT } from '../../scripts/n8n-host';
import { CHROMIUM } from './global-setup';
import type { RealN8n } from './helpers';

export const ARTIFACTS = join(REPO_ROOT, 'test', 'e2e', 'artifacts');
const SCREENSHOTS = join(REPO_ROOT, 'docs', 'screenshots');
/** Per screenshot of docs/screenshots: the repository file it shows and that file's SHA-256 when it was taken. */
export const SCREENSHOT_SOURCES = join(SCREENSHOTS, 'sources.json');

const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]'];
/** The proxy Chromium gets: a loopback port where nothing listens (port 1, TCP multiplexing, is never served). */
const NOWHERE = 'http://127.0.0.1:1';

/** n8n 1.123's own page error right after signing in from a fresh page load (see signIn). */
const N8N1_VERSIONS_STORE_ERROR =
	"TypeError: Cannot read properties of undefined (reading 'enabled')";

export interface EditorBrowser {
	ctx: BrowserContext;
	page: Page;
	/** Uncaught page errors so far, of every page of the context. */
	pageErrors: string[];
	/** Addresses off loopback the editor tried to reach (each failed: sent to a proxy where nothing listens). */
	blocked: string[];
	close(): Promise<void>;
}

/** Starts Chromium with a fresh profile (removed on close). */
export async function launchEditorBrowser(): Promise<EditorBrowser> {
	mkdirSync(ARTIFACTS, { recursive: true });
	const profile = mkdtempSync(join(tmpdir(), 'ra-chromium-'));
	const pageErrors: string[] = [];
	const blocked: string[] = [];
	let ctx: BrowserContext;
	try {
		ctx = await chromium.launchPersistentContext(profile, {
			executablePath: CHROMIUM,
			headless: true,
			args: [
				'--no-sandbox',
				'--disable-gpu',
				'--disable-quic',
				'--no-first-run',
				'--disable-background-networking',
				'--disable-component-update',
				'--disable-sync',
				`--proxy-server=${NOWHERE}`,
			],
			viewport: { width: 1440, height: 900 },
		});
	} catch (error) {
		rmSync(profile, { recursive: true, force: true });
		throw error;
	}
	// Loopback only: Chromium sends every request off loopback to a proxy address where nothing listens (it never
	// sends loopback through a proxy), so it fails; each is recorded here. Not Playwright's request routing, which
	// would turn off the HTTP cache (every page load would fetch and compile the whole editor again) and take every
	// request through this process.
	ctx.on('requestfailed', (request) => {
		const url = new URL(request.url());
		if (!LOOPBACK.includes(url.hostname) && !['data:', 'blob:'].includes(url.protocol))
			blocked.push(url.href);
	});
	const watch = (p: Page) => {
		p.on('pageerror', (error) => pageErrors.push(`${error.name}: ${error.message}`));
		// Leaving a workflow with unsaved changes asks "leave the page?" (n8n 1.x does after merely opening panels); an
		// unanswered dialog is dismissed, which cancels the navigation: leave.
		p.on('dialog', (dialog) => void dialog.accept());
	};
	for (const open of ctx.pages()) watch(open);
	ctx.on('page', watch);
	const page = ctx.pages()[0] ?? (await ctx.newPage());
	return {
		ctx,
		page,
		pageErrors,
		blocked,
		async close() {
			await ctx.close();
			rmSync(profile, { recursive: true, force: true });
			if (blocked.length > 0)
				process.stderr.write(
					`[e2e] the editor tried to reach off loopback (each failed): ${[...new Set(blocked)].join(', ')}\n`,
				);
		},
	};
}

/** Signs in as the owner through the sign-in page, and waits for the signed-in editor. */
export async function signIn(browser: EditorBrowser, env: RealN8n): Promise<void> {
	const { page, pageErrors } = browser;
	await page.goto(`${env.n8n.baseUrl}/signin`);
	await page.locator('input[name="emailOrLdapLoginId"]').fill(DEFAULT_OWNER.email);
	await page.locator('input[name="password"]').fill(DEFAULT_OWNER.password);
	await page.locator('[data-test-id="form-submit-button"]').click();
	await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 30_000 });
	if (env.line === '1') {
		// n8n 1.123's editor initialises its versions store once per page load, with the settings it read before
		// sign-in: the public ones, which have no `versionNotifications` (n8n's initializeCore and
		// FrontendService.getPublicSettings). Signing in without a reload then throws n8n's own "Cannot read properties
		// of undefined (reading 'enabled')" before any node of ours is shown. A signed-in page load reads the full
		// settings: reload once, and accept only that error of n8n's from before the reload.
		await page.waitForTimeout(1000);
		const unexpected = pageErrors.splice(0).filter((e) => e !== N8N1_VERSIONS_STORE_ERROR);
		if (unexpected.length > 0)
			throw new Error(`editor errors before the reload: ${unexpected.join('; ')}`);
		await page.reload();
	}
	await page
		.locator('[data-test-id="main-sidebar-settings"], [data-test-id="project-home-menu-item"]')
		.first()
		.waitFor({ timeout: 30_000 });
}

/** Fails when the editor shows an error: an uncaught exception, an error toast, or an unknown-node panel. */
export async function expectNoEditorError(
	browser: EditorBrowser,
	where: string,
	page: Page = browser.page,
): Promise<void> {
	const { pageErrors } = browser;
	expect({ where, pageErrors }).toEqual({ where, pageErrors: [] });
	const toasts = await page.$$eval('.el-notification', (els) =>
		els.map((e) => `${e.className} ${e.textContent ?? ''}`.replace(/\s+/g, ' ').trim()),
	);
	const errorToasts = toasts.filter((t) => /error|problem|could not|failed|not installed/i.test(t));
	expect({ where, errorToasts }).toEqual({ where, errorToasts: [] });
	const ndvText = (await page.locator('[data-test-id="ndv"]').allInnerTexts()).join('\n');
	expect(ndvText).not.toMatch(
		/not currently installed|Install this node|node type is unknown|Could not load|There was a problem/i,
	);
}

/** Reads a value until it satisfies `ok` or `timeoutMs` pass; returns the last value read (the caller asserts on it). */
export async function eventually<T>(
	page: Page,
	read: () => Promise<T>,
	ok: (value: T) => boolean,
	timeoutMs = 15_000,
): Promise<T> {
	const started = Date.now();
	for (;;) {
		const value = await read();
		if (ok(value) || Date.now() - started > timeoutMs) return value;
		await page.waitForTimeout(200);
	}
}

/** A screenshot of the page into test/e2e/artifacts/<name>.png. */
export async function shot(page: Page, name: string): Promise<void> {
	await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}

/**
 * A screenshot the docs show (of the page, of one element `of` it, or of a `clip` of it): into test/e2e/artifacts/, and, only when asked (`npm run docs:screenshots`, on the
 * n8n line `npm start` runs), into docs/screenshots/<name>.png with its entry in docs/screenshots/sources.json:
 * the repository file it shows (`source`) and that file's SHA-256 now. Tests write no tracked file otherwise.
 */
export async function docsShot(
	page: Page,
	env: RealN8n,
	name: string,
	source: string,
	of?: Locator | { clip: { x: number; y: number; width: number; height: number } },
): Promise<void> {
	const take = (path: string) =>
		of && 'clip' in of
			? page.screenshot({ path, clip: of.clip })
			: (of ?? page).screenshot({ path });
	await take(join(ARTIFACTS, `${name}.png`));
	if (process.env.RA_DOCS_SCREENSHOTS !== '1' || env.line !== '2') return;
	const png = `${name}.png`;
	await take(join(SCREENSHOTS, png));
	const sources = existsSync(SCREENSHOT_SOURCES)
		? (JSON.parse(readFileSync(SCREENSHOT_SOURCES, 'utf8')) as Record<string, unknown>)
		: {};
	sources[png] = {
		source,
		sha256: createHash('sha256')
			.update(readFileSync(join(REPO_ROOT, source)))
			.digest('hex'),
	};
	const sorted = Object.fromEntries(Object.entries(sources).sort(([a], [b]) => a.localeCompare(b)));
	writeFileSync(SCREENSHOT_SOURCES, `${JSON.stringify(sorted, null, '\t')}\n`);
}
