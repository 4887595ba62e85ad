/**
 * Jest set-up of the Prism project (jest.prism.config.js): each test fails if Prism's validating proxy reported a
 * request the node sent, or an answer it got, that does not follow openapi/openapi.yaml.
 */
import { activeProxies } from './prism';

const seen = new Map<object, number>();

beforeEach(() => {
	for (const proxy of activeProxies) seen.set(proxy, proxy.violations.length);
});

afterEach(() => {
	const found: string[] = [];
	for (const proxy of activeProxies) {
		found.push(...proxy.violations.slice(seen.get(proxy) ?? 0));
		seen.set(proxy, proxy.violations.length);
	}
	if (found.length > 0)
		throw new Error(
			`Prism found ${found.length} contract violation(s):\n  - ${found.join('\n  - ')}`,
		);
});
