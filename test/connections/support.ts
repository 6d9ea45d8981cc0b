import { and, eq, inArray } from 'drizzle-orm';
import { expect } from 'vitest';
import { runScheduledTick } from '../../functions/scheduled-tick.js';
import { ManualClock } from '../../platform/clock.js';
import { runs } from '../../schema/index.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { FakeGong, FakeHubSpot, type GongFakeCall, type HubSpotFakeRecord } from '../support/fake-providers.js';
import {
  createHarness,
  type Harness,
  type HarnessOptions,
  type RequestOptions,
  type SeededWorkspace,
  type TestResponse,
} from '../support/harness.js';
import type { Scope } from '../../functions/identity/scopes.js';

/** A harness with fake HubSpot and Gong, a manual clock, and helpers to run syncs to their end. */
export interface ConnectionsWorld {
  h: Harness;
  clock: ManualClock;
  hubspot: FakeHubSpot;
  gong: FakeGong;
  ws: SeededWorkspace;
  /** An OAuth access token of the workspace admin with the connection scopes and data:read. */
  admin: string;
  editor: string;
  api(
    method: string,
    path: string,
    options?: Omit<RequestOptions, 'bearer'> & { as?: string },
  ): Promise<TestResponse<any>>;
  /** Deliver everything, advancing the clock past retry and Retry-After delays, until no sync is active. */
  settle(maxRounds?: number): Promise<void>;
  /** Deliver what is due now, without moving the clock. */
  drain(): Promise<void>;
  tick(): Promise<void>;
  close(): Promise<void>;
}

export const CONNECTION_SCOPES: Scope[] = ['connections:read', 'connections:write', 'connections:delete', 'data:read'];
export const START = '2026-06-01T12:00:00.000Z';

export async function connectionsWorld(
  env: Record<string, string> = {},
  options: Pick<HarnessOptions, 'connectors'> = {},
): Promise<ConnectionsWorld> {
  const clock = new ManualClock(START);
  const hubspot = await new FakeHubSpot().start();
  const gong = await new FakeGong().start();
  const h = await createHarness({
    clock,
    env: { HUBSPOT_API_BASE_URL: hubspot.url, GONG_API_BASE_URL: gong.url, ...env },
    ...options,
  });
  const ws = await h.seedWorkspace('Connections World');
  const admin = await ws.tokenFor(ws.admin, CONNECTION_SCOPES, { ttlSeconds: 30 * 24 * 3600 });
  const editor = await ws.tokenFor(ws.editor, CONNECTION_SCOPES, { ttlSeconds: 30 * 24 * 3600 });
  const queue = h.services.queue as LocalTransport;
  const activeSyncs = async () =>
    (
      await h.database.db
        .select({ id: runs.id })
        .from(runs)
        .where(and(eq(runs.kind, 'connection_sync'), inArray(runs.status, ['queued', 'running'])))
    ).length;
  return {
    h,
    clock,
    hubspot,
    gong,
    ws,
    admin,
    editor,
    api: (method, path, options = {}) => {
      const { as, ...rest } = options;
      return h.request(method, path, { ...rest, ...(rest.key ? {} : { bearer: as ?? admin }) });
    },
    drain: () => queue.drain(),
    async settle(maxRounds = 40) {
      for (let round = 0; round < maxRounds; round++) {
        await queue.drain();
        if ((await activeSyncs()) === 0) return;
        await clock.advance(61_000);
      }
      throw new Error('syncs did not settle');
    },
    tick: () => runScheduledTick(h.services, clock.now()),
    async close() {
      await h.close();
      await hubspot.stop();
      await gong.stop();
    },
  };
}

const daysBefore = (days: number) => new Date(Date.parse(START) - days * 86_400_000).toISOString();

/** A small HubSpot portal: three recent companies and one untouched for two years, contacts, deals. */
export function seedHubSpot(fake: FakeHubSpot): void {
  const company = (id: string, name: string, domain: string, days: number, type = 'CUSTOMER'): HubSpotFakeRecord => ({
    id,
    properties: {
      name,
      domain,
      industry: 'SOFTWARE',
      numberofemployees: '250',
      type,
      createdate: daysBefore(days + 30),
      hs_lastmodifieddate: daysBefore(days),
    },
  });
  fake.objects.companies.push(
    company('101', 'Acme Robotics', 'acme.com', 10),
    company('102', 'Globex', 'globex.com', 20, 'PROSPECT'),
    company('103', 'Initech', 'initech.com', 30),
    company('104', 'Old Dormant Co', 'dormant.com', 730),
  );
  const contact = (
    id: string,
    first: string,
    last: string,
    email: string,
    companyId: string | null,
    days: number,
  ): HubSpotFakeRecord => ({
    id,
    properties: {
      firstname: first,
      lastname: last,
      email,
      jobtitle: 'VP Operations',
      associatedcompanyid: companyId,
      createdate: daysBefore(days + 5),
      hs_lastmodifieddate: daysBefore(days),
    },
  });
  fake.objects.contacts.push(
    contact('201', 'Dana', 'Diaz', 'dana@acme.com', '101', 9),
    contact('202', 'Gil', 'Grant', 'gil@globex.com', '102', 8),
    contact('203', 'Ina', 'Ito', 'ina@initech.com', '103', 7),
    contact('204', 'Nora', 'Nobody', 'nora@nowhere.test', null, 6),
  );
  const deal = (
    id: string,
    name: string,
    stage: string,
    amount: string,
    companyId: string,
    days: number,
    closed = false,
    won = false,
  ): HubSpotFakeRecord => {
    fake.dealCompany.set(id, companyId);
    return {
      id,
      properties: {
        dealname: name,
        dealstage: stage,
        amount,
        closedate: daysBefore(days - 30),
        hs_is_closed: String(closed),
        hs_is_closed_won: String(won),
        hs_deal_stage_probability: won ? '1' : '0.4',
        deal_currency_code: 'USD',
        createdate: daysBefore(days + 60),
        hs_lastmodifieddate: daysBefore(days),
      },
    };
  };
  fake.objects.deals.push(
    deal('301', 'Acme platform expansion', 'contractsent', '120000', '101', 5),
    deal('302', 'Globex pilot', 'presentationscheduled', '40000', '102', 4),
    deal('303', 'Initech renewal', 'closedwon', '90000', '103', 3, true, true),
    deal('304', 'Acme add-on', 'closedlost', '15000', '101', 2, true, false),
  );
}

const sentence = (start: number, text: string) => ({ start, end: start + 4000, text });

/** Gong calls: customer calls with transcripts, an internal one, one excluded by domain, one without a roster. */
export function seedGong(fake: FakeGong): GongFakeCall[] {
  const rep = {
    id: 'p-rep',
    emailAddress: 'rae@seller.test',
    name: 'Rae Rep',
    affiliation: 'Internal' as const,
    speakerId: 's-rep',
    userId: 'u1',
  };
  const calls: GongFakeCall[] = [
    {
      id: '9001',
      title: 'Acme Robotics onboarding review',
      started: daysBefore(6),
      duration: 1800,
      brief: 'Acme walked through onboarding and their data residency requirement.',
      parties: [
        rep,
        {
          id: 'p-dana',
          emailAddress: 'dana@acme.com',
          name: 'Dana Diaz',
          affiliation: 'External',
          speakerId: 's-dana',
        },
      ],
      transcript: [
        {
          speakerId: 's-rep',
          topic: 'Intro',
          sentences: [sentence(0, 'Thanks for joining, Dana.'), sentence(4000, 'How is onboarding going?')],
        },
        {
          speakerId: 's-dana',
          topic: 'Onboarding',
          sentences: [
            sentence(9000, 'Honestly the onboarding took far longer than we planned.'),
            sentence(14000, 'We need all customer data to stay inside the European Union.'),
          ],
        },
      ],
    },
    {
      id: '9002',
      title: 'Globex pricing call',
      started: daysBefore(5),
      duration: 1200,
      parties: [
        rep,
        { id: 'p-gil', emailAddress: 'gil@globex.com', name: 'Gil Grant', affiliation: 'External', speakerId: 's-gil' },
      ],
      transcript: [
        { speakerId: 's-gil', sentences: [sentence(0, 'The per seat price is above our budget for next year.')] },
        { speakerId: 's-rep', sentences: [sentence(5000, 'Understood, let us look at volume tiers.')] },
      ],
    },
    {
      id: '9003',
      title: 'Internal pipeline standup',
      started: daysBefore(4),
      duration: 900,
      parties: [
        rep,
        {
          id: 'p-mgr',
          emailAddress: 'max@seller.test',
          name: 'Max Manager',
          affiliation: 'Internal',
          speakerId: 's-max',
        },
      ],
      transcript: [{ speakerId: 's-max', sentences: [sentence(0, 'Internal only: forecast review.')] }],
    },
    {
      id: '9004',
      title: 'Initech EU security sync',
      started: daysBefore(3),
      duration: 1500,
      parties: [
        rep,
        { id: 'p-eu', emailAddress: 'sec@eu.initech.com', name: 'Sam Sec', affiliation: 'External', speakerId: 's-eu' },
      ],
      transcript: [
        { speakerId: 's-eu', sentences: [sentence(0, 'Our security team must review the penetration test report.')] },
      ],
    },
    {
      id: '9005',
      title: 'Not Initech: a lookalike domain',
      started: daysBefore(2),
      duration: 600,
      parties: [
        rep,
        {
          id: 'p-not',
          emailAddress: 'ops@notinitech.com',
          name: 'Olly Ops',
          affiliation: 'Unknown',
          speakerId: 's-not',
        },
      ],
      transcript: [{ speakerId: 's-not', sentences: [sentence(0, 'We are evaluating three vendors this quarter.')] }],
    },
    {
      id: '9006',
      title: 'Dial-in with no roster',
      started: daysBefore(1),
      duration: 300,
      parties: [{ id: 'p-anon', name: 'Unknown caller', affiliation: 'Unknown' }],
    },
  ];
  fake.calls.push(...calls);
  return calls;
}

export function expectEnvelope(res: TestResponse<any>, status: number, code: string): Record<string, any> {
  expect(res.status, res.text).toBe(status);
  expect(res.body.error?.code, res.text).toBe(code);
  return res.body.error;
}
