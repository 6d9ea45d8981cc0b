/**
 * The reader's domain lexicon, kept as data: each entry maps a phrase (its words matched against a
 * question's lemmas or written forms, longest phrase first) to one element of the workspace's schema
 * or of a question's structure. A new wording of a known need is a new entry here, with a test in
 * test/agents/reader.test.ts — never a new code path. Names (accounts, deals, owners, regions, stages,
 * deal kinds) are not here: they are linked against the workspace's own vocabulary.
 */

export type Field =
  | 'owner_email'
  | 'stage'
  | 'account_name'
  | 'account_region'
  | 'account_industry'
  | 'close_date'
  | 'amount'
  | 'probability'
  | 'occurred_at'
  | 'kind';

export type Element =
  /** The records asked about. */
  | { kind: 'subject'; subject: 'deals' }
  | { kind: 'subject'; subject: 'interactions'; interaction: 'call' | 'meeting' | 'email' | null }
  /** A deal's state: open, won, lost, closed (won or lost), or past its close date and still open. */
  | { kind: 'state'; state: 'open' | 'won' | 'lost' | 'closed' | 'overdue' }
  /** What is computed over them. `rate` becomes a win rate next to a win word; `weighted`, amount × probability. */
  | { kind: 'measure'; measure: 'count' | 'sum' | 'avg' | 'rate' | 'weighted' }
  /**
   * Winning, as an event a rate can count ("win rate", "what share did we win", "converts"). `who`: a
   * person who wins ("closer", "rainmaker"), so the rate is each owner's, best first.
   */
  | { kind: 'win'; rate?: true; who?: true }
  /** An attribute of the records: shown, grouped by ("by rep"), or the key of an order. */
  | { kind: 'attribute'; field: Field; showOnly?: true }
  /** "by", "per", "each", "broken out by": the attribute after it groups the rows. */
  | { kind: 'group' }
  /** An order: by amount (biggest), by close date (soonest), by time (latest), or by the measure (best). */
  | { kind: 'order'; dir: 'asc' | 'desc'; key: 'amount' | 'close_date' | 'occurred_at' | 'measure' }
  /** "top", "first": the number after it limits the rows. */
  | { kind: 'top' }
  /** One row: "single", "the one". */
  | { kind: 'one' }
  /** An amount bound; the amount follows. */
  | { kind: 'bound'; op: 'gt' | 'gte' | 'lt' | 'lte' }
  /** The present state: "right now", "currently" name no period. */
  | { kind: 'present' }
  /** The period bounds when the records were created, not when they close. */
  | { kind: 'created' }
  | { kind: 'direction'; value: 'inbound' | 'outbound' }
  /** Two things set side by side ("vs", "compared with"). */
  | { kind: 'versus' }
  /**
   * A word that belongs to another kind of question (what customers say, competitors, churn, ...). `lost`:
   * a losses word that itself says deals were lost ("killing our deals"), not only asks why.
   */
  | { kind: 'cue'; analysis: CueAnalysis; lost?: true }
  /** A subject the data does not hold; `nearby` is what it holds instead. */
  | { kind: 'absent'; subject: string; nearby: string }
  /** Words of how people ask that carry no meaning here ("pls", "as a VP", "for me"). */
  | { kind: 'filler' };

export type CueAnalysis =
  | 'voice'
  | 'competitors'
  | 'losses'
  | 'churn'
  | 'qualification'
  | 'quiet'
  | 'history'
  | 'changes'
  | 'talk'
  /** What customers ask the product to do: "feature requests", "what are customers asking for". */
  | 'requests'
  /** Renewals as such ("renewals", a deal kind named so): with a risk, a quiet window or qualification, renewal risk. */
  | 'renewal'
  /** A customer renewing or not ("will they renew", "cancel", "not renew"): renewal risk. Churn, of any deal, is the churn reader's. */
  | 'lapse'
  /** Someone leaving their post or changing ("left", "quit", "moved on", "turnover"): with a champion, a champion change. */
  | 'departure'
  /** An account brief: "prep me for my call", "catch me up on". */
  | 'brief'
  /** Something to do rather than to read ("book a meeting", "send an email"): not a question of the data. */
  | 'action'
  /** Two periods side by side. */
  | 'compare'
  /** Deals pushed out: "slipped", "on hold", "delayed". */
  | 'slipped';

export type Entry = readonly [phrase: string, element: Element];

/**
 * What a buyer says when a deal is pushed out, searched in what was said or written (the filter lane's
 * `said_or_written contains`): each phrase is one search, their deals merged.
 */
export const DELAY_SIGNALS: readonly string[] = ['on hold', 'freeze', 'paused', 'revisit this next'];

const deals: Element = { kind: 'subject', subject: 'deals' };
const interactions = (interaction: 'call' | 'meeting' | 'email' | null): Element => ({
  kind: 'subject',
  subject: 'interactions',
  interaction,
});
const state = (s: 'open' | 'won' | 'lost' | 'closed' | 'overdue'): Element => ({ kind: 'state', state: s });
const measure = (m: 'count' | 'sum' | 'avg' | 'rate' | 'weighted'): Element => ({ kind: 'measure', measure: m });
const attribute = (field: Field): Element => ({ kind: 'attribute', field });
const order = (dir: 'asc' | 'desc', key: 'amount' | 'close_date' | 'occurred_at' | 'measure'): Element => ({
  kind: 'order',
  dir,
  key,
});
const cue = (analysis: CueAnalysis): Element => ({ kind: 'cue', analysis });
const absent = (subject: string, nearby: string): Element => ({ kind: 'absent', subject, nearby });
const filler: Element = { kind: 'filler' };

export const LEXICON: readonly Entry[] = [
  // ---- people who win: read before "close", which a comparative "closer" lemmatises to ------------
  ['closer', { kind: 'win', rate: true, who: true }],
  ['deal closer', { kind: 'win', rate: true, who: true }],
  ['winner', { kind: 'win', rate: true, who: true }],
  ['rainmaker', { kind: 'win', rate: true, who: true }],
  // ---- records ------------------------------------------------------------------------------
  ['deal', deals],
  ['opportunity', deals],
  ['opp', deals],
  ['oppty', deals],
  ['pipeline', deals],
  ['pipe', deals],
  ['book of business', deals],
  ['book', deals],
  ['forecast', deals],
  ['call', interactions('call')],
  ['phone call', interactions('call')],
  ['meeting', interactions('meeting')],
  ['meet', interactions('meeting')],
  ['email', interactions('email')],
  ['e-mail', interactions('email')],
  ['mail', interactions('email')],
  ['conversation', interactions(null)],
  ['interaction', interactions(null)],
  ['touch', interactions(null)],
  ['touchpoint', interactions(null)],
  ['activity', interactions(null)],
  ['engagement', interactions(null)],

  // ---- states of a deal ----------------------------------------------------------------------
  ['open', state('open')],
  ['still open', state('open')],
  ['active', state('open')],
  ['in flight', state('open')],
  ['live', state('open')],
  ['alive', state('open')],
  ['outstanding', state('open')],
  ['in play', state('open')],
  ['closed won', state('won')],
  ['closed-won', state('won')],
  ['won', state('won')],
  // "Q3 bookings": what was won.
  ['booking', state('won')],
  ['win', state('won')],
  ['booked', state('won')],
  ['signed', state('won')],
  ['closed lost', state('lost')],
  ['closed-lost', state('lost')],
  ['lost', state('lost')],
  ['lose', state('lost')],
  ['fell through', state('lost')],
  ['fall through', state('lost')],
  ['closed', state('closed')],
  // A deal that is closing, or will close or land, is still open ("deals closing this quarter").
  ['closing', state('open')],
  ['close', state('open')],
  ['land', state('open')],
  ['slated to sign', state('open')],
  ['past their close date', state('overdue')],
  ['past its close date', state('overdue')],
  ['past the close date', state('overdue')],
  ['past close date', state('overdue')],
  ['overdue', state('overdue')],
  ['past due', state('overdue')],

  // ---- measures ------------------------------------------------------------------------------
  ['how many', measure('count')],
  ['number of', measure('count')],
  ['count', measure('count')],
  ['volume', measure('count')],
  ['how much', measure('sum')],
  ['total', measure('sum')],
  ['sum', measure('sum')],
  ['worth', measure('sum')],
  ['value', measure('sum')],
  ['dollar', measure('sum')],
  ['money', measure('sum')],
  ['revenue', measure('sum')],
  ['average', measure('avg')],
  ['avg', measure('avg')],
  ['mean', measure('avg')],
  ['typical', measure('avg')],
  ['rate', measure('rate')],
  ['ratio', measure('rate')],
  ['percentage', measure('rate')],
  ['percent', measure('rate')],
  ['%', measure('rate')],
  ['fraction', measure('rate')],
  ['proportion', measure('rate')],
  ['share', measure('rate')],
  ['how often', measure('rate')],
  ['weighted', measure('weighted')],
  ['weight', measure('weighted')],
  ['probability-adjusted', measure('weighted')],
  ['probability adjusted', measure('weighted')],
  ['risk-adjusted', measure('weighted')],
  ['risk adjusted', measure('weighted')],
  ['expected value', measure('weighted')],
  ['realistically expect', measure('weighted')],
  ['amount x probability', measure('weighted')],
  ['amount times probability', measure('weighted')],
  ['amount * probability', measure('weighted')],
  ['win rate', { kind: 'win', rate: true }],
  ['win percentage', { kind: 'win', rate: true }],
  ['win ratio', { kind: 'win', rate: true }],
  ['convert', { kind: 'win' }],
  ['conversion', { kind: 'win', rate: true }],
  ['close rate', { kind: 'win', rate: true }],
  ['hit rate', { kind: 'win', rate: true }],

  // ---- attributes ----------------------------------------------------------------------------
  ['rep', attribute('owner_email')],
  ['owner', attribute('owner_email')],
  ['own', { kind: 'attribute', field: 'owner_email', showOnly: true }],
  ['carry', { kind: 'attribute', field: 'owner_email', showOnly: true }],
  ['ae', attribute('owner_email')],
  ['seller', attribute('owner_email')],
  ['salesperson', attribute('owner_email')],
  ['account executive', attribute('owner_email')],
  ['stage', attribute('stage')],
  ['phase', attribute('stage')],
  ['account', attribute('account_name')],
  ['customer', attribute('account_name')],
  ['company', attribute('account_name')],
  ['client', attribute('account_name')],
  ['region', attribute('account_region')],
  ['geo', attribute('account_region')],
  ['industry', attribute('account_industry')],
  ['vertical', attribute('account_industry')],
  ['close date', attribute('close_date')],

  ['when', { kind: 'attribute', field: 'close_date', showOnly: true }],
  ['amount', attribute('amount')],
  ['size', attribute('amount')],
  ['probability', attribute('probability')],
  ['win probability', attribute('probability')],
  ['probability of winning', attribute('probability')],
  ['close probability', attribute('probability')],
  ['likelihood', attribute('probability')],

  // ---- structure -----------------------------------------------------------------------------
  ['by', { kind: 'group' }],
  ['per', { kind: 'group' }],
  ['each', { kind: 'group' }],
  ['every', { kind: 'group' }],
  ['broken out by', { kind: 'group' }],
  ['broken down by', { kind: 'group' }],
  ['break down', { kind: 'group' }],
  ['breakdown', { kind: 'group' }],
  ['split by', { kind: 'group' }],
  ['rank', order('desc', 'measure')],
  ['ranking', order('desc', 'measure')],
  ['leaderboard', order('desc', 'measure')],
  ['best to worst', order('desc', 'measure')],
  ['worst to best', order('asc', 'measure')],
  ['best', order('desc', 'measure')],
  ['worst', order('asc', 'measure')],
  ['the most', order('desc', 'measure')],
  ['the least', order('asc', 'measure')],
  ['biggest', order('desc', 'amount')],
  ['big', order('desc', 'amount')],
  ['fat', order('desc', 'amount')],
  ['huge', order('desc', 'amount')],
  ['juicy', order('desc', 'amount')],
  ['massive', order('desc', 'amount')],
  ['tiny', order('asc', 'amount')],
  ['large', order('desc', 'amount')],
  ['high', order('desc', 'amount')],
  ['most valuable', order('desc', 'amount')],
  ['worth the most', order('desc', 'amount')],
  ['small', order('asc', 'amount')],
  ['low', order('asc', 'amount')],
  ['soonest', order('asc', 'close_date')],
  ['soon', order('asc', 'close_date')],
  ['earliest', order('asc', 'close_date')],
  ['next to close', order('asc', 'close_date')],
  ['latest', order('desc', 'occurred_at')],
  ['newest', order('desc', 'occurred_at')],
  ['most recent', order('desc', 'occurred_at')],
  ['top', { kind: 'top' }],
  ['first', { kind: 'top' }],
  ['single', { kind: 'one' }],
  ['over', { kind: 'bound', op: 'gt' }],
  ['above', { kind: 'bound', op: 'gt' }],
  ['more than', { kind: 'bound', op: 'gt' }],
  ['greater than', { kind: 'bound', op: 'gt' }],
  ['bigger than', { kind: 'bound', op: 'gt' }],
  ['at least', { kind: 'bound', op: 'gte' }],
  ['under', { kind: 'bound', op: 'lt' }],
  ['below', { kind: 'bound', op: 'lt' }],
  ['less than', { kind: 'bound', op: 'lt' }],
  ['smaller than', { kind: 'bound', op: 'lt' }],
  ['at most', { kind: 'bound', op: 'lte' }],
  ['vs', { kind: 'versus' }],
  ['than', { kind: 'versus' }],
  ['vs.', { kind: 'versus' }],
  ['versus', { kind: 'versus' }],
  ['compared with', { kind: 'versus' }],
  ['compared to', { kind: 'versus' }],
  ['compare', { kind: 'versus' }],

  // ---- time ----------------------------------------------------------------------------------
  ['right now', { kind: 'present' }],
  ['now', { kind: 'present' }],
  ['currently', { kind: 'present' }],
  ['current', { kind: 'present' }],
  ['at the moment', { kind: 'present' }],
  ['as of today', { kind: 'present' }],
  ['as it stands', { kind: 'present' }],
  ['at present', { kind: 'present' }],
  ['today', { kind: 'present' }],
  ['create', { kind: 'created' }],
  ['opened', { kind: 'created' }],
  ['add', { kind: 'created' }],
  ['new', { kind: 'created' }],
  ['come in', { kind: 'created' }],
  ['inbound', { kind: 'direction', value: 'inbound' }],
  ['incoming', { kind: 'direction', value: 'inbound' }],
  ['receive', { kind: 'direction', value: 'inbound' }],
  ['outbound', { kind: 'direction', value: 'outbound' }],
  ['outgoing', { kind: 'direction', value: 'outbound' }],
  ['send', { kind: 'direction', value: 'outbound' }],

  // ---- other kinds of question ---------------------------------------------------------------
  ['say', cue('voice')],
  ['tell', cue('voice')],
  ['mention', cue('voice')],
  ['complain', cue('voice')],
  ['complaint', cue('voice')],
  ['worry', cue('voice')],
  ['concern', cue('voice')],
  ['objection', cue('voice')],
  ['pushback', cue('voice')],
  ['push back', cue('voice')],
  ['feedback', cue('voice')],
  ['quote', cue('voice')],
  ['word', cue('voice')],
  ['ask for', cue('requests')],
  ['request', cue('requests')],
  ['feature', cue('requests')],
  ['wishlist', cue('requests')],
  ['wish list', cue('requests')],
  ['wish', cue('requests')],
  ['enhancement', cue('requests')],
  ['product gap', cue('requests')],
  ['missing feature', cue('requests')],
  ['capability', cue('requests')],
  ['would like to see', cue('requests')],
  ['want us to build', cue('requests')],
  ['want from the product', cue('requests')],
  ['roadmap', cue('requests')],
  // What customers want made: "asking us to build", "what should we build next".
  ['build', cue('requests')],
  ['integration ask', cue('requests')],
  ['like about', cue('voice')],
  ['competitor', cue('competitors')],
  ['competition', cue('competitors')],
  ['rival', cue('competitors')],
  ['battlecard', cue('competitors')],
  ['competitive', cue('competitors')],
  ['compete', cue('competitors')],
  ['incumbent', cue('competitors')],
  ['up against', cue('competitors')],
  ['bake-off', cue('competitors')],
  ['bake off', cue('competitors')],
  ['why', cue('losses')],
  ['reason', cue('losses')],
  ['what went wrong', { kind: 'cue', analysis: 'losses', lost: true }],
  ['kill', { kind: 'cue', analysis: 'losses', lost: true }],
  ['at risk', cue('churn')],
  ['risky', cue('churn')],
  ['in trouble', cue('churn')],
  ['shaky', cue('churn')],
  ['wobbly', cue('churn')],
  ['on thin ice', cue('churn')],
  ['risk', cue('churn')],
  ['danger', cue('churn')],
  ['red flag', cue('churn')],
  ['renewal', cue('renewal')],
  ['renew', cue('lapse')],
  ['churn', cue('churn')],
  ['churning', cue('churn')],
  ['cancel', cue('lapse')],
  ['not renew', cue('lapse')],
  ['leave us', cue('lapse')],
  ['walk away', cue('lapse')],
  ['left', cue('departure')],
  ['leave', cue('departure')],
  ['quit', cue('departure')],
  ['depart', cue('departure')],
  ['departure', cue('departure')],
  ['move on', cue('departure')],
  ['moved on', cue('departure')],
  ['turnover', cue('departure')],
  ['new job', cue('departure')],
  ['gone', cue('departure')],
  ['replace', cue('departure')],
  ['swap', cue('departure')],
  // "the champion walked out the door", "after a champion walked": leaving, said of a person.
  ['walk out', cue('departure')],
  ['walk', cue('departure')],
  ['no longer there', cue('departure')],
  ['champion', cue('qualification')],
  ['champ', cue('qualification')],
  ['economic buyer', cue('qualification')],
  ['decision maker', cue('qualification')],
  ['quiet', cue('quiet')],
  ['go dark', cue('quiet')],
  ['dark', cue('quiet')],
  ['silent', cue('quiet')],
  ['stall', cue('quiet')],
  ['stalled', cue('quiet')],
  ['untouched', cue('quiet')],
  ['no activity', cue('quiet')],
  ['zero engagement', cue('quiet')],
  ["haven't talked", cue('quiet')],
  ['history', cue('history')],
  ['timeline', cue('history')],
  ['whole story', cue('history')],
  ['full story', cue('history')],
  ['recap', cue('history')],
  ['rundown', cue('history')],
  ['since day one', cue('history')],
  ['walk me through', cue('history')],
  ['first touch', cue('history')],
  ['relationship', cue('history')],
  ['from the start', cue('history')],
  ['from the beginning', cue('history')],
  ['backstory', cue('history')],
  ['chronology', cue('history')],
  // The first or the last time we were in touch with an account is a date of its history.
  ['first talk', cue('history')],
  ['first speak', cue('history')],
  ['first contact', cue('history')],
  ['first meet', cue('history')],
  ['last touch', cue('history')],
  ['last talk', cue('history')],
  ['last speak', cue('history')],
  ['last contact', cue('history')],
  ['last time we talk', cue('history')],
  ['last time we speak', cue('history')],
  ['change', cue('changes')],
  ['happen', cue('changes')],
  ['talk ratio', cue('talk')],
  ['talk-to-listen', cue('talk')],
  ['talk share', cue('talk')],
  ['airtime', cue('talk')],
  ['the talking', cue('talk')],
  ['listen', cue('talk')],
  ['listener', cue('talk')],
  ['talker', cue('talk')],
  ['talk time', cue('talk')],
  ['talking time', cue('talk')],
  ['speaking time', cue('talk')],
  ['time talking', cue('talk')],
  ['time spent talking', cue('talk')],
  ['monologue', cue('talk')],

  ['prep', cue('brief')],
  ['prepare', cue('brief')],
  ['brief', cue('brief')],
  ['briefing', cue('brief')],
  ['catch me up', cue('brief')],
  ['get me ready', cue('brief')],
  ['overview', cue('brief')],
  ['status of', cue('brief')],
  ['update on', cue('brief')],
  ['tell me about', cue('brief')],
  ['go on with', cue('brief')],
  ['book a', cue('action')],
  ['book the', cue('action')],
  ['book me', cue('action')],
  ['schedule', cue('action')],
  ['send a', cue('action')],
  ['send an', cue('action')],
  ['send the', cue('action')],
  ['draft', cue('action')],
  ['remind', cue('action')],
  ['translate', cue('action')],
  ['write a', cue('action')],
  ['joke', cue('action')],

  ['slip', cue('slipped')],
  ['push', cue('slipped')],
  ['pushed out', cue('slipped')],
  ['delay', cue('slipped')],
  ['postpone', cue('slipped')],
  ['on hold', cue('slipped')],
  ['put on hold', cue('slipped')],
  ['on ice', cue('slipped')],
  ['come back to us', cue('slipped')],
  ['pause', cue('slipped')],

  // ---- what the data does not hold -----------------------------------------------------------
  ['nps', absent('NPS', 'what customers said in calls, meetings and emails')],
  ['csat', absent('CSAT scores', 'what customers said in calls, meetings and emails')],
  ['satisfaction score', absent('satisfaction scores', 'what customers said in calls, meetings and emails')],
  ['campaign', absent('marketing campaigns', 'deals, their amounts and stages')],
  ['webinar', absent('marketing campaigns', 'deals, their amounts and stages')],
  ['channel', absent('marketing channels or lead sources', 'deals, their amounts and stages')],
  ['lead source', absent('lead sources', 'deals, their amounts and stages')],
  ['cost per lead', absent('marketing costs', 'deals, their amounts and stages')],
  ['roi', absent('marketing costs or returns', 'deals, their amounts and stages')],
  ['quota', absent('quotas', 'deals won by owner')],
  ['attainment', absent('quotas', 'deals won by owner')],
  ['arr', absent('recurring revenue (deals hold one amount)', 'deal amounts')],
  ['mrr', absent('recurring revenue (deals hold one amount)', 'deal amounts')],
  ['margin', absent('costs and margins', 'deal amounts')],
  ['commission', absent('commissions or payouts', 'deals won by owner')],
  ['payout', absent('commissions or payouts', 'deals won by owner')],
  ['website traffic', absent('website traffic', 'calls, meetings and emails')],
  ['web traffic', absent('website traffic', 'calls, meetings and emails')],
  ['ad spend', absent('ad spend', 'deals, their amounts and stages')],
  ['advertising', absent('ad spend', 'deals, their amounts and stages')],
  ['ads', absent('ad spend', 'deals, their amounts and stages')],
  ['support ticket', absent('support tickets', 'calls, meetings and emails')],
  ['ticket', absent('support tickets', 'calls, meetings and emails')],

  // ---- how people ask ------------------------------------------------------------------------
  // "Keep getting delayed": how often, not what.
  ['keep', filler],
  ['pls', filler],
  ['wat', filler],
  ['wut', filler],
  ['r', filler],
  ['from', filler],
  ['or', filler],
  ['at', filler],
  ['into', filler],
  ['once', filler],
  ['you', filler],
  ['please', filler],
  ['plz', filler],
  ['as a vp', filler],
  ['as a cro', filler],
  ['vp', filler],
  ['cro', filler],
  ['ceo', filler],
  ['cfo', filler],
  ['manager', filler],
  ['here', filler],
  ['name', filler],
  ['but', filler],
  ['for me', filler],
  ['for my team', filler],
  ['my team', filler],
  ['we', filler],
  ['our', filler],
  ['us', filler],
  ['i', filler],
  ['want', filler],
  ['need', filler],
  ['like', filler],
  ['see', filler],
  ['know', filler],
  ['look', filler],
  ['got', filler],
  ['get', filler],
  ['actually', filler],
  ['still', filler],
  ['only', filler],
  ['there', filler],
  ['sit', filler],
  ['sitting', filler],
  ['expected', filler],
  ['supposed', filler],
  ['held', filler],
  ['hold', filler],
  ['have', filler],
  ['do', filler],
  ['be', filler],
  ['so far', filler],
  ['ok', filler],
  ['okay', filler],
  ['and', filler],
  ['also', filler],
  ['then', filler],
  ['same', filler],
  ['one', filler],
  ['it', filler],
  ['they', filler],
  ['them', filler],
  ['those', filler],
  ['these', filler],
  ['that', filler],
  ['this', filler],
  ['their', filler],
  ['her', filler],
  ['his', filler],
  ['its', filler],
  ['all', filler],
  ['list', filler],
  ['show', filler],
  ['give', filler],
  ['pull', filler],
  ['find', filler],
  ['number', filler],
  ['figure', filler],
  ['look like', filler],
  ['team', filler],
  ['forecast-style', filler],
  ['x', filler],
  ['times', filler],
  ['across', filler],
  ['overall', filler],
  ['altogether', filler],
  ['in total', measure('sum')],
  ['recorded', filler],
  ['take part', filler],
  ['spend', filler],
  ['did', filler],
  ['does', filler],
  ['should', filler],
  ['would', filler],
  ['could', filler],
  ['can', filler],
  ['will', filler],
  ['is', filler],
  ['are', filler],
  ['was', filler],
  ['were', filler],
];
