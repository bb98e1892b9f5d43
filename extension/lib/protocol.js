// The message protocol between the extension's pages (popup, panel) and the background (the
// service worker in Chrome, the background script in Firefox): every message type, its fields and
// its reply, as types (`Protocol` below is the table), and `send()`, the one way a page asks.
//
// Every reply is {ok: true, result} or {ok: false, error: string}; `send()` returns the result or
// throws the error. The background answers only the extension's own pages. One message goes the
// other way, a `Notice` the background broadcasts to open pages (`notify`, `onNotice`).
//
// Message and field names are the extension's API (tests drive the worker with them): keep them.

/** @typedef {import('../pkg/exemplar.js').Classification} Classification */
/** @typedef {import('../pkg/exemplar.js').Verdict} Verdict */
/** @typedef {import('../pkg/exemplar.js').Detection} Detection */
/** @typedef {import('../pkg/exemplar.js').SimilarityOptions} SimilarityOptions */
/** @typedef {import('./core-types.js').CoreSettings} CoreSettings */
/** @typedef {import('./core-types.js').Progress} Progress */
/** @typedef {import('./core-types.js').Trap} Trap */
/** @typedef {import('./core-types.js').StopReason} StopReason */
/** @typedef {import('./core-types.js').QueryEvent} QueryEvent */
/** @typedef {import('./core-types.js').Learned} Learned */

// ------------------------------------------------------------------ settings

/**
 * The extension's own settings, beside the core's (`CoreSettings`).
 * @typedef {object} ExtensionSettings
 * @property {number} timeoutMs a request's time limit
 * @property {boolean} crawlAfterLearning run the crawler once it is learned
 * @property {boolean} verify a crawl compares every target with the example (not only the new ones)
 */

/** The settings of a job (the popup's "limits"): the core's and the extension's.
 * @typedef {CoreSettings & ExtensionSettings} Settings */

/** Query policies of form levels (the core's names).
 * @typedef {'adaptive' | 'values' | 'thesis' | 'genericFrequency' | 'random'} QueryPolicy */

/**
 * A run's query settings for its form levels, as the user gives them: values as a list or a text,
 * one a line or comma-separated.
 * @typedef {object} FormsSettings
 * @property {string[] | string | null} [queries]
 * @property {QueryPolicy | ''} [policy]
 * @property {number | string | null} [budget] queries over each form level
 */

/** The same, checked (what a crawl runs with).
 * @typedef {{queries?: string[], policy?: QueryPolicy, budget?: number}} Forms */

/** Settings of one run of a saved crawler: over the crawler's (maxBytes, …), and its form levels'.
 * @typedef {Partial<Settings> & {forms?: FormsSettings}} RunSettings */

// ------------------------------------------------------------------ results

/** A tab's page kind: its classification, the tab's URL and referrer.
 * @typedef {Classification & {url: string, referrer: string}} TabClassification */

/**
 * A generation asked for in the popup, left in storage.session until site access is granted.
 * @typedef {object} PendingStart
 * @property {string} id
 * @property {string} exampleUrl
 * @property {string | null} [examplePost] the body the tab's own POST form sends as it stands,
 *   when the page may be a form's answer (`postbackOf` in the popup): the example is that POST
 *   when its URL cannot be fetched
 * @property {string} entryUrl
 * @property {Partial<Settings>} settings
 * @property {string[]} origins the host patterns it needs
 * @property {number} at when asked (ms since the epoch)
 */

/** @typedef {'learn' | 'crawl'} JobKind */
/** @typedef {'running' | 'paused' | 'done' | 'failed' | 'cancelled'} JobState */

/** A page that failed (`askAccess`: a sitemap on a host that answered nothing, maybe for want of access).
 * @typedef {{url: string, what: string, at: number, askAccess?: boolean}} JobError */

/** The site's last "come back later" (429, 503): the request waits `waitMs`, the site `delayMs`.
 * @typedef {{url: string, status: number, waitMs: number, delayMs: number, attempt: number}} Retry */

/** Pages not read for passing settings.maxBytes: how many, and the first URLs.
 * @typedef {{count: number, urls: string[]}} TooLarge */

/**
 * A learning job's result (the pattern itself is in the crawler). `learnedAt`: when it was
 * learned or re-learned (ms since the epoch; absent in results stored before it was kept), so
 * that a page tells one result from the next.
 * @typedef {Pick<Learned, 'threshold' | 'rendered' | 'targets' | 'similarities' | 'nearMisses'> & {
 *   learnedAt?: number,
 *   levels: import('./core-types.js').PatternLevel[],
 *   thresholdGap: import('./core-types.js').ThresholdGap | null,
 *   thresholdLowered: import('./core-types.js').LoweredThreshold | null,
 *   thresholdCut: import('./core-types.js').LoweredThreshold | null,
 *   doubtfulTargets?: import('./core-types.js').Doubtful[],
 *   listingTargets?: string[],
 *   corrections: import('./core-types.js').Corrections,
 *   byHeading: string[],
 *   unlikeByHeading: string[],
 *   headingKinds: import('./core-types.js').HeadingKind[],
 *   headingKindsBelow: import('./core-types.js').KindBelow[],
 *   unlikeByLanguage: string[],
 *   languageKinds: import('./core-types.js').LanguageKind[],
 *   unlikeByDirectory: string[],
 *   directoryKinds: import('./core-types.js').DirectoryKind[],
 *   leftUnfetched: import('./core-types.js').LeftUnfetched[],
 *   sitemaps: string[],
 *   sitemapsRead: number,
 *   sitemapPages: number,
 *   stats: unknown,
 * }} LearnedSummary
 */

/**
 * A crawl's result: targets found, those new or changed since the crawler's last run, queries
 * issued, coverage (`new`: how many targets learning had not seen).
 * @typedef {object} CrawlResult
 * @property {number} targets
 * @property {number} newSinceLastRun
 * @property {number} changedSinceLastRun
 * @property {number} queries
 * @property {{known: number, reached: number, missed: string[], new: number}} coverage
 */

/**
 * A job's rendering of pages drawn by scripts (lib/render.js): whether it renders, why, and how
 * many pages it rendered, failed to render (kept as fetched), and the first failure.
 * @typedef {{on: boolean, why: string, rendered: number, failed: number, firstError: string | null}} Rendering */

/**
 * A job's status. Crawls of form levels: `progress.queries`, `queryBudget` (all form levels),
 * `lastQuery` (the last query event), `formLevels` ({level: {issued, budget}}).
 * @typedef {object} JobStatus
 * @property {string} id
 * @property {JobKind} kind
 * @property {JobState} status
 * @property {string | null} crawlerId
 * @property {string} entry
 * @property {string} example
 * @property {number} startedAt
 * @property {number} updatedAt
 * @property {Progress | null} progress
 * @property {number} rate pages per second
 * @property {string} current the URL being fetched
 * @property {JobError[]} errors the last ten
 * @property {number} errorCount
 * @property {StopReason | null} stopped
 * @property {string | null} error
 * @property {LearnedSummary | CrawlResult | null} result by kind
 * @property {Settings} settings
 * @property {Forms | null} forms
 * @property {number | null} queryBudget
 * @property {Omit<QueryEvent, 'type'> | null} lastQuery
 * @property {Record<string, {issued: number, budget: number}>} formLevels
 * @property {TooLarge} tooLarge
 * @property {Trap[]} traps
 * @property {boolean} scheduled a run the schedule started
 * @property {Retry | null} lastRetry
 * @property {string[]} replicaHosts hosts the site links to that a crawl took for replicas of it
 * @property {Rendering | null} rendering whether the job renders pages drawn by scripts, why, and its counts
 * @property {string | null} fieldsError a generation's: why no data fields were learned
 * @property {TooLarge} fileErrors links to files (images, documents) that failed, apart from
 *   the pages' errors: how many, and the first (with why)
 */

/** Every job, newest first.
 * @typedef {{jobs: JobStatus[]}} JobList */

/** One run of a saved crawler.
 * @typedef {{jobId: string, at: number, targets: number, newSinceLastRun: number, changedSinceLastRun: number, queries: number, stopped: StopReason | null, scheduled: boolean}} Run */

/** A crawler's schedule: it runs again by itself every `everyHours`, next at `nextAt`.
 * @typedef {{everyHours: number, nextAt: number, lastError?: string}} Schedule */

/**
 * A saved crawler, as the pages see it (without the example page's body).
 * @typedef {object} CrawlerSummary
 * @property {string} id
 * @property {string} site
 * @property {string} [name] the user's name for it (else its site names it)
 * @property {string} entry
 * @property {string} example
 * @property {string | null} [exampleContentType]
 * @property {number} createdAt
 * @property {string} patternJson
 * @property {number | undefined} threshold
 * @property {string | null} learnJobId null: imported
 * @property {boolean} [imported]
 * @property {Settings} settings
 * @property {Run[]} runs
 * @property {Schedule} [schedule]
 */

/** The search engine and backlink service "Find more sites like this" reads (URL templates
 * with {q} and {url}; empty: none).
 * @typedef {{search: string, backlinks: string}} DiscoverServices */

/** A search for more sites like a crawler's, as the worker keeps it (storage.session
 * `discovery`): its sites so far, best first; `noAccess`: the origins it could not read.
 * @typedef {object} DiscoveryState
 * @property {string} crawlerId
 * @property {'running' | 'done' | 'stopped' | 'failed'} status
 * @property {number} startedAt
 * @property {number} maxFetches
 * @property {import('../pkg/exemplar.js').FoundSite[]} sites
 * @property {number} refused sites met and refused (not of the seeds' kind)
 * @property {{site: string, of: string}[]} replicas sites left out as another name of a site known
 * @property {number} fetches
 * @property {number} queries
 * @property {string[]} problems
 * @property {string[]} noAccess
 * @property {string | null} error
 */

// ------------------------------------------------------------------ the table

/**
 * The messages a page sends: type → its fields (`msg`) and its reply's result (`result`).
 * - classify: a page's kind, from its HTML.
 * - classifyTab: the tab's live DOM, read with scripting (needs activeTab or site access).
 * - similarity: two pages compared.
 * - tabState: the tab's last classification, or null.
 * - detect: the site's sections of item pages, searched from the page `url` in a few fetches
 *   (needs site access; `delayMs` over the default delay).
 * - startLearn: maps the site, learns the pattern, saves a crawler, then crawls with it
 *   (examplePost: the example is a form's answer to that POST body when its URL answers
 *   nothing but an error or a redirect elsewhere).
 * - startPending: the popup's request left in storage.session, started once (also on
 *   permissions.onAdded); null when there is nothing to start.
 * - runCrawler: runs a saved crawler again (settings over the crawler's; forms: its form
 *   levels' queries).
 * - pauseJob, resumeJob, cancelJob: the job's status.
 * - status: one job's status (jobId) or every job's, newest first; tooLarge: pages not read,
 *   past settings.maxBytes.
 * - relearn: the learning result at θ `threshold`, without refetching, with the user's verdicts
 *   (replacing earlier ones); the crawler's pattern is replaced. like/unlike: URLs the user
 *   judged (like the example or not); unlikeHeadings: heading templates of targets left out;
 *   likeHeadings: of pages below θ taken; unlikeLanguages: declared languages of targets left
 *   out; likeLanguages: those kept (a proposal taken back); unlikeDirectories: directory URLs
 *   whose targets are left out.
 * - crawlers: the saved crawlers, newest first.
 * - renameCrawler: names the crawler (an empty name: its site names it again).
 * - importPattern: the new crawler (a clear error if the JSON is malformed).
 * - deleteCrawler: true.
 * - setSchedule: runs the crawler again by itself every `everyHours` (> 0, or null: never),
 *   first at `firstAt` (ms since the epoch; default: one period from now); its runs record
 *   scheduled: true.
 * - discover: starts "Find more sites like this" from a saved crawler (search, backlinks:
 *   templates, "" for none; needs access to their sites); its state follows in
 *   storage.session `discovery`. stopDiscovery: stops it (false: none ran).
 *   discoverServices: the templates set last.
 * - defaults: the settings a job starts from (the popup's limits).
 * - crawlerFields: the crawler's data fields and their values on its example page.
 * - editFields: one edit of the crawler's fields (remove, rename, or place by a CSS selector; a
 *   clear error when the core refuses it): its fields after it.
 * - showFields: shows the fields on the example page, in a tab (opened when none shows it); with
 *   `pick`, the next element the user clicks there becomes a field (a `fieldsChanged` notice
 *   follows).
 * @typedef {{
 *   classify: {msg: {html: string, url: string}, result: Classification},
 *   classifyTab: {msg: {tabId: number}, result: TabClassification},
 *   similarity: {msg: {htmlA: string, htmlB: string, options?: SimilarityOptions}, result: Verdict},
 *   tabState: {msg: {tabId: number}, result: TabClassification | null},
 *   detect: {msg: {url: string, delayMs?: number, settings?: Partial<Settings>}, result: Detection},
 *   startLearn: {msg: {exampleUrl: string, examplePost?: string | null, entryUrl?: string, settings?: Partial<Settings>}, result: {jobId: string}},
 *   startPending: {msg: {id?: string, pending?: PendingStart}, result: {jobId: string} | null},
 *   runCrawler: {msg: {crawlerId: string, settings?: RunSettings}, result: {jobId: string}},
 *   pauseJob: {msg: {jobId: string}, result: JobStatus},
 *   resumeJob: {msg: {jobId: string}, result: JobStatus},
 *   cancelJob: {msg: {jobId: string}, result: JobStatus},
 *   status: {msg: {jobId?: string}, result: JobStatus | JobList},
 *   relearn: {msg: {
 *     jobId: string, threshold: number, like?: string[], unlike?: string[],
 *     unlikeHeadings?: string[], likeHeadings?: string[], unlikeLanguages?: string[], likeLanguages?: string[],
 *     unlikeDirectories?: string[], likeDirectories?: string[],
 *   }, result: LearnedSummary},
 *   crawlers: {msg: {}, result: CrawlerSummary[]},
 *   renameCrawler: {msg: {crawlerId: string, name: string}, result: CrawlerSummary},
 *   importPattern: {msg: {json: string}, result: CrawlerSummary},
 *   deleteCrawler: {msg: {crawlerId: string}, result: true},
 *   setSchedule: {msg: {crawlerId: string, everyHours: number | null, firstAt?: number}, result: CrawlerSummary},
 *   discover: {msg: {crawlerId: string, search?: string, backlinks?: string, maxFetches?: number}, result: {started: true}},
 *   stopDiscovery: {msg: {}, result: boolean},
 *   discoverServices: {msg: {}, result: DiscoverServices},
 *   defaults: {msg: {}, result: Settings},
 *   crawlerFields: {msg: {crawlerId: string}, result: import('./core-types.js').FieldsView},
 *   editFields: {msg: {crawlerId: string, edit: import('./core-types.js').FieldEdit}, result: import('./core-types.js').FieldsView},
 *   showFields: {msg: {crawlerId: string, pick?: boolean}, result: {tabId: number}},
 * }} Protocol
 */

/** @typedef {keyof Protocol} MessageType */

/** A message of type `T`: its type and fields.
 * @template {MessageType} T
 * @typedef {{type: T} & Protocol[T]['msg']} Message */

/** What a message of type `T` gets back.
 * @template {MessageType} T
 * @typedef {Protocol[T]['result']} Result */

/** @template T @typedef {{ok: true, result: T} | {ok: false, error: string}} Reply */

/** What the background broadcasts to open pages: a job started (the panel looks at once), or
 * a crawler's fields changed (an element picked on the example page; `error`: why a pick was
 * refused).
 * @typedef {{type: 'jobStarted', jobId: string} | {type: 'fieldsChanged', crawlerId: string, error?: string}} Notice */

// ------------------------------------------------------------------ sending

/**
 * @overload
 * @param {{type: 'status'}} msg every job
 * @returns {Promise<JobList>}
 */
/**
 * @overload
 * @param {{type: 'status', jobId: string}} msg one job
 * @returns {Promise<JobStatus>}
 */
/**
 * @template {MessageType} T
 * @overload
 * @param {Message<T>} msg
 * @returns {Promise<Result<T>>}
 */
/**
 * Sends `msg` to the background: its result, or throws its error.
 * @param {Message<MessageType>} msg
 * @returns {Promise<unknown>}
 */
export async function send(msg) {
  /** @type {Reply<unknown> | undefined} */
  const reply = await chrome.runtime.sendMessage(msg);
  if (!reply?.ok) throw new Error(reply?.error ?? 'no reply from Exemplar');
  return reply.result;
}

/**
 * Tells the open extension pages `notice`; nobody listening is fine.
 * @param {Notice} notice
 */
export function notify(notice) {
  chrome.runtime.sendMessage(notice).catch(() => {});
}

/**
 * Calls `fn` with each notice the background sends (and nothing else a page receives).
 * @param {(notice: Notice) => void} fn
 */
export function onNotice(fn) {
  chrome.runtime.onMessage.addListener((/** @type {unknown} */ msg, sender) => {
    if (sender.id !== chrome.runtime.id) return;
    const notice = /** @type {{type?: unknown, jobId?: unknown, crawlerId?: unknown, error?: unknown} | null} */ (msg);
    if (notice?.type === 'jobStarted' && typeof notice.jobId === 'string') fn({ type: 'jobStarted', jobId: notice.jobId });
    if (notice?.type === 'fieldsChanged' && typeof notice.crawlerId === 'string') {
      fn({ type: 'fieldsChanged', crawlerId: notice.crawlerId, ...(typeof notice.error === 'string' ? { error: notice.error } : {}) });
    }
  });
}
