/**
 * The dashboard's only script (progressive enhancement): shows the copy buttons and copies the text
 * of the element a button names; on a scan in progress, follows it through the API (progress each
 * second, a reload once it ends). Without it every page works: the text is there to select, and a
 * scan's page refreshes itself.
 */
export const CLIENT_SCRIPT = `
for (const button of document.querySelectorAll('button[data-copy]')) {
  button.hidden = false;
  button.addEventListener('click', async () => {
    const source = document.getElementById(button.dataset.copy);
    if (!source) return;
    const label = button.textContent;
    try {
      await navigator.clipboard.writeText(source.textContent);
      button.textContent = 'Copied';
    } catch {
      const range = document.createRange();
      range.selectNodeContents(source);
      const selection = getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      button.textContent = 'Selected: press Ctrl+C';
    }
    setTimeout(() => { button.textContent = label; }, 2000);
  });
}

const live = document.querySelector('[data-scan]');
if (live) {
  const progress = live.querySelector('[data-scan-progress]');
  const text = live.querySelector('[data-scan-text]');
  const badge = live.querySelector('[data-scan-status] .badge');
  const follow = async () => {
    try {
      const response = await fetch(live.dataset.scan, { headers: { accept: 'application/json' } });
      if (response.ok) {
        const scan = await response.json();
        if (scan.status !== 'queued' && scan.status !== 'running') return location.reload();
        badge.textContent = scan.status;
        const { done, total } = scan.progress;
        if (total > 0) {
          progress.max = total;
          progress.value = done;
          text.textContent = done + ' of ' + total + ' commits';
        } else if (scan.status === 'running') {
          text.textContent = 'cloning';
        }
      }
    } catch {
      // The next poll tries again.
    }
    setTimeout(follow, 1000);
  };
  setTimeout(follow, 1000);
}
`;
