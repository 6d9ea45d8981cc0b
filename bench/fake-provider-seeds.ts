import type { FakeGong, FakeHubSpot, GongFakeCall } from '../test/support/fake-providers.js';

/** The data the sync benchmark's fake providers serve. */
export const SEED_NOW = new Date('2026-06-01T12:00:00.000Z');
const NOW = SEED_NOW;

/** A call with `sentences` sentences, alternating rep and customer, in turns of four. */
export function gongCall(i: number, sentences: number): GongFakeCall {
  const monologues = [];
  for (let s = 0; s < sentences; s += 4) {
    const customer = (s / 4) % 2 === 1;
    monologues.push({
      speakerId: customer ? 'c' : 'r',
      sentences: Array.from({ length: Math.min(4, sentences - s) }, (_, k) => ({
        start: (s + k) * 5000,
        end: (s + k) * 5000 + 4000,
        text: customer
          ? `Call ${i}: our team ${['needs SSO', 'worries about price', 'wants the EU region', 'asks about onboarding'][(i + s + k) % 4]} before we sign, point ${s + k}.`
          : `Rep line ${s + k} of call ${i}.`,
      })),
    });
  }
  return {
    id: String(100000 + i),
    title: `Customer call ${i}`,
    started: new Date(NOW.getTime() - (i + 1) * 60_000).toISOString(),
    duration: 1800,
    parties: [
      { id: 'r', emailAddress: 'rep@seller.test', name: 'Rep', affiliation: 'Internal', speakerId: 'r' },
      {
        id: 'c',
        emailAddress: `buyer${i % 50}@customer${i % 50}.test`,
        name: 'Buyer',
        affiliation: 'External',
        speakerId: 'c',
      },
    ],
    transcript: monologues,
  };
}

export function seedContacts(hubspot: FakeHubSpot, count: number): void {
  hubspot.objects.companies.push({
    id: '1',
    properties: {
      name: 'Bulk Co',
      domain: 'bulk.test',
      createdate: NOW.toISOString(),
      hs_lastmodifieddate: NOW.toISOString(),
    },
  });
  for (let i = 0; i < count; i++) {
    hubspot.objects.contacts.push({
      id: String(10_000 + i),
      properties: {
        firstname: `P${i}`,
        lastname: 'Bulk',
        email: `p${i}@bulk.test`,
        associatedcompanyid: '1',
        createdate: NOW.toISOString(),
        hs_lastmodifieddate: new Date(NOW.getTime() - count * 1000 + i * 1000).toISOString(),
      },
    });
  }
}

/** Seed a fake with `count` calls (Gong, 40 sentences each) or contacts (HubSpot, one company). */
export function seedProvider(kind: 'gong' | 'hubspot', provider: FakeGong | FakeHubSpot, count: number): void {
  if (kind === 'gong') for (let i = 0; i < count; i++) (provider as FakeGong).calls.push(gongCall(i, 40));
  else seedContacts(provider as FakeHubSpot, count);
}
