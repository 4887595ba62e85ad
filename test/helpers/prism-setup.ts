/**
 * Jest set-up of the Prism project (jest.prism.config.js): Prism's validating proxy reports every request the node
 * sent, and every answer it got, that does not follow openapi/openapi.yaml (errors and warnings). Each test fails on
 * what was found since the last check, whether it happened in the test, in a before hook or between tests; the
 * file fails on what its hooks caused after its last test; closing a proxy throws what is left after that
 * (test/helpers/prism.ts).
 */
import { takeUnreportedFindings } from './prism';

function failOn(found: string[], where: string): void {
	if (found.length > 0)
		throw new Error(
			`Prism found ${found.length} contract violation(s) or warning(s) ${where}:\n  - ${found.join('\n  - ')}`,
		);
}

afterEach(() => failOn(takeUnreportedFindings(), 'during this test or before it'));

afterAll(() => failOn(takeUnreportedFindings(), 'after the last test of this file'));
