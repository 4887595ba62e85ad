/**
 * The process-wide n8n environment the harness runs nodes in.
 *
 * n8n-core reads its settings from the `@n8n/di` container (`InstanceSettings`, `BinaryDataConfig`,
 * `BinaryDataService`, `Logger`, `Cipher`, ...), built from `@n8n/config` objects. Before anything
 * asks the container for them we point n8n's user folder at a fresh temp directory (n8n would
 * otherwise create `~/.n8n/config` with a new encryption key) and give it a per-process encryption
 * key, like a self-hosted n8n started with `N8N_USER_FOLDER` and `N8N_ENCRYPTION_KEY`.
 *
 * Jest gives every test file its own module registry, so every test file gets its own container.
 * Within one test file the container is shared: see `useBinaryMode` for what that means for binary data.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Logger } from '@n8n/backend-common';
import { GlobalConfig, InstanceSettingsConfig } from '@n8n/config';
import { Container } from '@n8n/di';
import {
	BinaryDataConfig,
	BinaryDataService,
	Cipher,
	EncryptionKeyProxy,
	ErrorReporter,
	InstanceSettings,
	type IEncryptionKeyProvider,
	type KeyInfo,
} from 'n8n-core';
import { LoggerProxy } from 'n8n-workflow';

/** The binary data modes a harness run can use (n8n's `N8N_DEFAULT_BINARY_DATA_MODE`). */
export type HarnessBinaryMode = 'default' | 'filesystem';

interface EngineEnvironment {
	/** Temp root of this process: n8n user folder and per-run binary stores live below it. */
	rootDir: string;
	instanceSettings: InstanceSettings;
	logger: Logger;
}

let environment: EngineEnvironment | undefined;

/** Builds the environment once per module registry (i.e. once per Jest test file). */
export function ensureEngineEnvironment(): EngineEnvironment {
	if (environment) return environment;

	// Below the jest run's own temporary folder when there is one (test/tmp-root-setup.js removes it when the run
	// ends); the exit handler is for a harness used outside jest.
	const rootDir = mkdtempSync(
		path.join(process.env.RA_TEST_TMP ?? tmpdir(), 'n8n-engine-harness-'),
	);
	process.once('exit', () => rmSync(rootDir, { recursive: true, force: true }));

	// Configure n8n through its config objects (what the env vars N8N_USER_FOLDER,
	// N8N_ENCRYPTION_KEY and N8N_LOG_LEVEL would set), before anything reads them. Nothing is
	// written to process.env, so child processes a test starts (a real n8n) are not affected.
	// (`n8nFolder`/`userHome` are declared readonly: they are fixed before InstanceSettings reads them.)
	const instanceConfig = Container.get(InstanceSettingsConfig) as {
		-readonly [K in keyof InstanceSettingsConfig]: InstanceSettingsConfig[K];
	};
	instanceConfig.n8nFolder = path.join(rootDir, '.n8n');
	instanceConfig.userHome = rootDir;
	instanceConfig.encryptionKey = randomBytes(24).toString('base64');
	Container.get(GlobalConfig).logging.level = 'silent';

	const instanceSettings = Container.get(InstanceSettings);
	const logger = Container.get(Logger);
	LoggerProxy.init(logger);
	Container.get(EncryptionKeyProxy).setProvider(
		createKeyProvider(Container.get(Cipher), instanceSettings),
	);

	environment = { rootDir, instanceSettings, logger };
	return environment;
}

/**
 * In-memory stand-in for the CLI's database-backed encryption key provider: one active
 * data-encryption key (AES-256-GCM, wrapped with the instance key exactly as n8n stores it) plus
 * the legacy descriptor (the instance key itself, AES-256-CBC) for data without a key prefix.
 * n8n-core's `Cipher` does all the cryptography; this only says which keys exist.
 */
function createKeyProvider(
	cipher: Cipher,
	instanceSettings: InstanceSettings,
): IEncryptionKeyProvider {
	const active: KeyInfo = {
		id: 'harness-dek-1',
		value: cipher.encryptDEKWithInstanceKey(randomBytes(32).toString('hex')),
		algorithm: 'aes-256-gcm',
		format: 'prefixed',
	};
	const legacy: KeyInfo = {
		id: 'legacy',
		value: cipher.encryptDEKWithInstanceKey(instanceSettings.encryptionKey),
		algorithm: 'aes-256-cbc',
		format: 'no-prefix',
	};
	return {
		getActiveKey: async () => active,
		getKeyById: async (id) => (id === active.id ? active : null),
		getLegacyKey: async () => legacy,
	};
}

let binaryRunsInFlight = 0;
let currentBinaryMode: HarnessBinaryMode | undefined;
/** The service of the current mode (resolves once `init()` is done), shared by overlapping runs. */
let currentService: Promise<{ service: BinaryDataService; storagePath?: string }> | undefined;
let runCounter = 0;

export interface BinaryModeHandle {
	mode: HarnessBinaryMode;
	/** The filesystem store of this run (filesystem mode only). Removed when the process exits. */
	storagePath?: string;
	service: BinaryDataService;
	/** Call when the run is finished (output binaries stay readable afterwards). */
	release(): void;
}

/**
 * Installs a real `BinaryDataService` for one run in the given mode.
 *
 * - `default`: n8n's in-memory mode; binaries travel base64 inside the items (`data`), no `id`.
 * - `filesystem`: n8n's filesystem mode (the service maps it to `filesystem-v2`), in a fresh temp
 *   directory per run (overlapping runs share one); items carry an `id` like
 *   `filesystem-v2:workflows/...` and the bytes are on disk.
 *
 * n8n-core's helpers look the service up in the DI container (`Container.get(BinaryDataService)`),
 * so one mode is active per process at a time. Runs with the same mode may overlap; starting a run
 * in the other mode while one is in flight throws instead of silently mixing stores.
 */
export async function useBinaryMode(mode: HarnessBinaryMode): Promise<BinaryModeHandle> {
	const env = ensureEngineEnvironment();
	// Reserve synchronously (before any await), so two runs started together cannot both pass the check.
	if (binaryRunsInFlight > 0 && currentBinaryMode !== mode) {
		throw new Error(
			`n8n-engine harness: a run in binary mode "${currentBinaryMode}" is still in flight; ` +
				`await it before starting one in mode "${mode}" (n8n keeps one BinaryDataService per process).`,
		);
	}
	if (binaryRunsInFlight === 0 || currentService === undefined) {
		const config = Container.get(BinaryDataConfig);
		config.mode = mode;
		let storagePath: string | undefined;
		if (mode === 'filesystem') {
			storagePath = path.join(env.rootDir, `binary-data-${process.pid}-${++runCounter}`);
			mkdirSync(storagePath, { recursive: true });
			config.localStoragePath = storagePath;
		}
		const service = new BinaryDataService(config, Container.get(ErrorReporter), env.logger);
		Container.set(BinaryDataService, service);
		currentBinaryMode = mode;
		currentService = service.init().then(() => ({ service, storagePath }));
	}
	binaryRunsInFlight++;
	let released = false;
	const release = () => {
		if (released) return;
		released = true;
		binaryRunsInFlight--;
	};
	try {
		const { service, storagePath } = await currentService;
		return { mode, storagePath, service, release };
	} catch (error) {
		release();
		currentService = undefined;
		throw error;
	}
}
