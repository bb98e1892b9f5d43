// The toolbar popup: shows the current tab's page kind, confidence and evidence.
// Everything is written with textContent: crawled HTML never reaches the extension's pages.
const $ = (id) => document.getElementById(id);

const round = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(3));

// One piece of evidence: {feature, value, contribution} → "links_ratio = 0.412 (+1.20)".
function describe(item) {
  if (typeof item?.feature !== 'string') return JSON.stringify(item);
  const sign = item.contribution >= 0 ? '+' : '';
  return `${item.feature} = ${round(item.value)} (${sign}${item.contribution.toFixed(2)})`;
}

function show(result) {
  $('status').textContent = result.url ? result.url : '';
  $('kind').textContent = result.kind;
  $('confidence').textContent = `${Math.round(result.confidence * 100)}%`;
  const list = $('evidence');
  list.replaceChildren();
  for (const item of result.evidence ?? []) {
    const li = document.createElement('li');
    li.textContent = describe(item);
    list.append(li);
  }
  $('result').hidden = false;
}

function fail(message) {
  $('status').textContent = message;
  $('status').className = 'error';
}

async function main() {
  // ?tabId=N shows another tab (handy when the popup is opened as a page for debugging).
  const param = new URLSearchParams(location.search).get('tabId');
  const tabId = param ? Number(param) : (await chrome.tabs.query({ active: true, currentWindow: true }))[0]?.id;
  if (tabId === undefined) return fail('No active tab.');
  const reply = await chrome.runtime.sendMessage({ type: 'classifyTab', tabId });
  if (reply?.ok) return show(reply.result);
  // No access to the page (e.g. a browser page): show the last result if there is one.
  const cached = await chrome.runtime.sendMessage({ type: 'tabState', tabId });
  if (cached?.ok && cached.result) return show(cached.result);
  fail(`Exemplar cannot read this page (${reply?.error ?? 'no reply'}).`);
}

main().catch((e) => fail(String(e?.message ?? e)));
