import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { Container } from '@n8n/di';
import { BinaryDataService, InstanceSettings } from 'n8n-core';

import { currentBinaryDataService, executeNode } from '../../helpers/n8n-engine';
import { PlainNode } from './fixtures';

describe('engine environment', () => {
	it('keeps n8n in a private temp user folder with its own encryption key, without touching process.env', async () => {
		const envBefore = { ...process.env };
		await executeNode({ nodeType: new PlainNode(), parameters: {} });
		const settings = Container.get(InstanceSettings);
		// Below the jest run's own temporary folder (test/tmp-root-setup.js), which the run removes when it ends.
		const runTmp = process.env.RA_TEST_TMP ?? '';
		expect(runTmp).not.toBe('');
		expect(settings.n8nFolder.startsWith(path.join(runTmp, 'n8n-engine-harness-'))).toBe(true);
		const config = JSON.parse(readFileSync(path.join(settings.n8nFolder, 'config'), 'utf8')) as {
			encryptionKey: string;
		};
		expect(config.encryptionKey).toBe(settings.encryptionKey);
		expect(settings.encryptionKey.length).toBeGreaterThan(20);
		expect(process.env).toEqual(envBefore);
	});

	it('the binary data service the nodes use is the one from n8n-core, in the mode of the last run', async () => {
		await executeNode({ nodeType: new PlainNode(), parameters: {}, binaryMode: 'filesystem' });
		expect(currentBinaryDataService()).toBeInstanceOf(BinaryDataService);
		expect(currentBinaryDataService()).toBe(Container.get(BinaryDataService));
		expect(existsSync(path.join(Container.get(InstanceSettings).n8nFolder, 'config'))).toBe(true);
	});
});
