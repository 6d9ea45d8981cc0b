/**
 * A seeded fake provider in a process of its own, as a real provider is: the sync benchmark
 * measures the syncing process's memory without the fake's records and indexes in it.
 *
 *   node --import tsx bench/fake-provider-process.ts <gong|hubspot> <count>
 *
 * Prints one JSON line (`url` and the credentials to connect with), then serves until killed.
 */
import { FakeGong, FakeHubSpot } from '../test/support/fake-providers.js';
import { seedProvider } from './fake-provider-seeds.js';

export interface FakeProviderReady {
  url: string;
  apiKey: string;
  apiId: string | null;
}

const [kind, count] = [process.argv[2], Number(process.argv[3] ?? 0)];
if (kind !== 'gong' && kind !== 'hubspot') throw new Error('usage: fake-provider-process.ts <gong|hubspot> <count>');
const provider = kind === 'gong' ? await new FakeGong().start() : await new FakeHubSpot().start();
seedProvider(kind, provider, count);
const ready: FakeProviderReady =
  provider instanceof FakeGong
    ? { url: provider.url, apiKey: provider.secret, apiId: provider.accessKey }
    : { url: provider.url, apiKey: provider.token, apiId: null };
process.stdout.write(`${JSON.stringify(ready)}\n`);
