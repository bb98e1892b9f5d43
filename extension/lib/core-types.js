// Types only: the plain objects the wasm core hands over (its .d.ts, pkg/exemplar.d.ts, types them
// `any`, as wasm-bindgen does for a serialised value). Written from the Rust side's serde shapes
// (crates/wasm/src/jobs.rs and the types it returns), and only as deep as the extension reads them.
// Nothing here runs: modules import these with `import('./core-types.js').Name` in JSDoc.

// ------------------------------------------------------------------ settings

/**
 * The core's defaults of a learning run (the wasm `defaultSettings()`; `concurrency` is requests
 * at once on one host).
 * @typedef {object} CoreSettings
 * @property {number} maxPages
 * @property {number} maxDepth
 * @property {number} delayMs
 * @property {number} concurrency
 * @property {number} threshold similarity θ in [0, 1]
 * @property {number} maxBytes the page size limit, in bytes
 * @property {boolean} obeyRobots robots.txt and robots meta tags (nofollow)
 */

// ------------------------------------------------------------------ the driver loop

/** @typedef {'page' | 'robots' | 'script' | 'sitemap'} RequestKind */

/**
 * A request of the core (`poll` → `{type: 'fetch'}`).
 * @typedef {object} CoreRequest
 * @property {number} id
 * @property {string} url
 * @property {RequestKind} kind
 * @property {{body: string, contentType: string}} [post] a POST form submission's body
 */

/**
 * What `Job.poll(now)` says to do now.
 * @typedef {({type: 'fetch'} & CoreRequest) | {type: 'wait', untilMs: number} | {type: 'busy'} | {type: 'done'}} Poll
 */

/**
 * Counts for the progress display (`Job.progress()`); crawls add `newTargets`, `rejected`,
 * `queries`.
 * @typedef {object} Progress
 * @property {number} fetched
 * @property {number} targets
 * @property {number} queued
 * @property {number} [inFlight]
 * @property {number} [skipped]
 * @property {number} [errors]
 * @property {number} [bytes]
 * @property {number} elapsedMs
 * @property {number} [newTargets]
 * @property {number} [rejected]
 * @property {number} [queries]
 * @property {number} [sitemaps] sitemaps read
 * @property {number} [sitemapRequests] sitemap requests answered (not in `fetched`)
 * @property {number} [sitemapLinks] URLs followed from them
 * @property {number} [retried] requests asked again (429, 503)
 * @property {number} [duplicatesAvoided] links not fetched: the pattern's rules for duplicate URLs
 *   rewrite them into a URL already met
 * @property {number} [duplicateRulesRefuted] rules for duplicate URLs a probe refuted (not applied)
 * @property {number} [replicaLinks] links to a replica of the site (www. or bare, another TLD)
 *   followed as the site's own
 */

/**
 * A bound of the trap guard that refused links (Rust's `canon::Refusal`).
 * @typedef {object} Trap
 * @property {string} reason
 * @property {number} count
 * @property {string} example the first link refused
 * @property {string} limit the bound in words
 */

/** @typedef {'exhausted' | 'maxPages' | 'maxDuration' | 'cancelled'} StopReason */

/**
 * A crawl's coverage against the targets its pattern was learned from (`Job.coverage()`).
 * @typedef {object} Coverage
 * @property {number} known
 * @property {number} reached
 * @property {string[]} missed
 * @property {string[]} new
 */

// ------------------------------------------------------------------ events (`Job.drainEvents()`)

/**
 * A map node's state: `httpError` (status), `failed` (error), `offSite` (final_url), `notHtml`
 * (media_type), `tooLarge`, `disallowed`, … (snake_case fields: the Rust enum's).
 * @typedef {object} NodeState
 * @property {string} state
 * @property {number} [status]
 * @property {string} [error]
 * @property {string} [final_url]
 * @property {string} [finalUrl]
 * @property {string} [media_type]
 */

/** @typedef {{type: 'fetched', url: string, depth: number, status?: number, similarity?: number | null, target?: boolean, state?: NodeState}} FetchedEvent */
/** @typedef {{type: 'tooLarge', url: string}} TooLargeEvent */
/** @typedef {{type: 'page', url: string, level?: number, status: number, followed?: number}} PageEvent */
/** @typedef {{type: 'skipped', url: string, reason: string}} SkippedEvent */
/** @typedef {{type: 'sitemapSkipped', url: string, reason: string, unreachable?: boolean}} SitemapSkippedEvent */
/** @typedef {{type: 'retry', url: string, status: number, waitMs: number, delayMs: number, attempt: number}} RetryEvent */
/** @typedef {{type: 'finished', reason?: string}} FinishedEvent */
/** @typedef {{type: 'replica', host: string}} ReplicaEvent a host the site links to taken as a replica of it */

/**
 * A form level's query answered.
 * @typedef {object} QueryEvent
 * @property {'query'} type
 * @property {number} level
 * @property {string} query
 * @property {number} issued
 * @property {number} budget
 * @property {number} resultPages
 * @property {number} documents
 * @property {number} targets
 */

/**
 * A crawl's target page (the body as bytes).
 * @typedef {object} TargetEvent
 * @property {'target'} type
 * @property {string} url
 * @property {string} [finalUrl]
 * @property {number} [status]
 * @property {[string, string][]} [headers]
 * @property {Uint8Array} [body]
 * @property {string} [title]
 * @property {string} [heading]
 * @property {string} [lang]
 * @property {number | null} [similarity]
 * @property {boolean} [verified]
 * @property {number} [foundOnLevel]
 * @property {boolean} [new]
 * @property {boolean} [byHeading] taken below θ for its heading
 * @property {number} [fetchedAtMs]
 * @property {string} [textDigest] title and visible text, signed by the core
 * @property {[string, FieldValue][]} [fields] the pattern's data fields read from the page
 */

/** @typedef {FetchedEvent | TooLargeEvent | PageEvent | SkippedEvent | SitemapSkippedEvent | RetryEvent | FinishedEvent | QueryEvent | TargetEvent | ReplicaEvent} CoreEvent */

// ------------------------------------------------------------------ patterns

/**
 * A search form level's form (Rust's `forms::FormLevel`).
 * @typedef {object} FormLevel
 * @property {{action?: string, method?: string, fields?: {name: string, label?: string}[]}} [form]
 * @property {string} template
 * @property {string | null} [queryField]
 * @property {string[]} [values] the values that worked
 * @property {string} [policy]
 * @property {number} [budget]
 * @property {number} [maxResultPages]
 */

/**
 * A level of a navigation pattern.
 * @typedef {object} PatternLevel
 * @property {string[]} regexes
 * @property {string[]} [exclude] pages the regexes match seen to be of another kind
 * @property {boolean} [paginate]
 * @property {boolean} [fromTargets]
 * @property {number} [pages] seen while learning
 * @property {string[]} [samples]
 * @property {FormLevel} [form] a search form level
 */

/**
 * The user's verdicts recorded in a pattern.
 * @typedef {object} Corrections
 * @property {string[]} like
 * @property {string[]} unlike
 * @property {string[]} [unlikeHeadings]
 * @property {string[]} [likeHeadings]
 * @property {string[]} [unlikeLanguages]
 * @property {string[]} [likeLanguages]
 * @property {string[]} [unlikeDirectories]
 * @property {string[]} [likeDirectories]
 */

/**
 * A rule for duplicate URLs (the core's `dust::DustRule`): a parameter that changes nothing, a
 * suffix or a path prefix a copy has, with the pairs of the map that bore it out.
 * @typedef {{kind: 'dropParam', name: string, value?: string, support: number, samples?: string[][]}
 *   | {kind: 'dropSuffix', suffix: string, support: number, samples?: string[][]}
 *   | {kind: 'prefix', from: string, to: string, support: number, samples?: string[][]}} DustRule
 */

/**
 * A navigation pattern (schemas/ has the whole schema; these are the fields the extension reads).
 * @typedef {object} Pattern
 * @property {string} site
 * @property {string} entry
 * @property {string} example
 * @property {boolean} [entryTarget] the entry page is like the example
 * @property {PatternLevel[]} levels
 * @property {{templates?: string[], unlike?: string[]}} [headingRule]
 * @property {{threshold?: number}} [similarity]
 * @property {{delayMs?: number}} [politeness]
 * @property {Corrections} [corrections]
 * @property {DustRule[]} [dustRules] rewrites of duplicate URLs (the core's `dust`)
 * @property {string[]} [byHeading]
 * @property {string[]} [unlikeByHeading]
 * @property {string[]} [unlikeByLanguage]
 * @property {string[]} [unlikeByDirectory]
 * @property {unknown} [stats]
 * @property {Field[]} [fields] the target pages' data fields
 */

// ------------------------------------------------------------------ learning (`Job.learnPattern`)

/** @typedef {{url: string, title: string, similarity: number | null, listing?: boolean}} MapTarget */
/** @typedef {{url: string, title: string, heading: string, similarity: number, urlLikeTargets: boolean}} NearMiss */
/** @typedef {{url: string, title: string, heading: string, similarity: number, urlUnlikeTargets: boolean, byHeading: boolean, entry: boolean}} Doubtful */
/** @typedef {{threshold: number, lowestAbove: number, highestBelow: number, pages: number, urlLikeTargets: number}} ThresholdGap */
/** @typedef {{from: number, to: number, pages: number, scored: number}} LoweredThreshold */
/** @typedef {{template: string, targets: number, samples: string[], example: boolean, unlike: boolean, section?: string}} HeadingKind */
/** @typedef {{template: string, pages: number, samples: string[], best: number, example: boolean, like: boolean}} KindBelow */
/** @typedef {{language: string, targets: number, samples: string[], example: boolean, unlike: boolean}} LanguageKind */
/** @typedef {{directory: string, targets: number, samples: string[], example: boolean, unlike: boolean}} DirectoryKind */
/** @typedef {{shape: string, pages: number}} LeftUnfetched */

/**
 * What `Job.learnPattern` returns.
 * @typedef {object} Learned
 * @property {Pattern} pattern
 * @property {string} patternJson
 * @property {string} rendered
 * @property {number} threshold
 * @property {MapTarget[]} targets
 * @property {number[]} similarities
 * @property {NearMiss[]} nearMisses
 * @property {ThresholdGap | null} [thresholdGap]
 * @property {LoweredThreshold | null} [thresholdLowered]
 * @property {LoweredThreshold | null} [thresholdCut]
 * @property {Doubtful[]} doubtfulTargets
 * @property {string[]} [listingTargets] the targets that look like listing pages
 * @property {HeadingKind[]} [headingKinds]
 * @property {KindBelow[]} [headingKindsBelow]
 * @property {LanguageKind[]} [languageKinds]
 * @property {DirectoryKind[]} [directoryKinds]
 * @property {LeftUnfetched[]} [leftUnfetched]
 * @property {string[]} [sitemaps]
 * @property {number} [sitemapsRead]
 * @property {number} [sitemapPages]
 */

// ------------------------------------------------------------------ data fields (`induceFields`, `editFields`, `fieldValues`)

/** How a field's values are typed.
 * @typedef {'text' | 'longText' | 'number' | 'price' | 'date' | 'url' | 'count'} ValueKind */

/** A field's value on a page: a number, a text, or a list of them (a repeated field).
 * @typedef {string | number | (string | number)[]} FieldValue */

/**
 * A data field of the target pages (the core's `fields::Field`).
 * @typedef {object} Field
 * @property {string} name a JSON key
 * @property {string} css its elements as a CSS selector; empty where a step is known by its
 *   label (a table row's header): `xpath` then
 * @property {string} xpath the same elements as XPath 1.0
 * @property {ValueKind} kind
 * @property {boolean} [repeated] a list
 * @property {boolean} [optional] absent from some pages
 * @property {'declared' | 'label' | 'class' | 'shape' | 'user' | 'position'} namedBy
 */

/** A pattern's fields and their values on one page (the example), in the fields' order.
 * @typedef {{fields: Field[], values: [string, FieldValue][]}} FieldsView */

/** What learning and editing fields return: the pattern with them, as JSON text.
 * @typedef {FieldsView & {patternJson: string}} FieldsEdited */

/** One edit of a pattern's fields, as the core takes it (`fields::Edit`).
 * @typedef {{op: 'remove', name: string} | {op: 'rename', name: string, to: string} | {op: 'place', name?: string, css: string}} FieldEdit */

export {};
