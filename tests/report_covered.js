() => {
  // Text-bearing elements on screen whose own box is painted over by another element.
  const selector = "h1, h2, h3, p, li, td, th, summary, nav a, button";
  const found = [];
  for (const el of document.querySelectorAll(`#app ${selector}`)) {
    const box = el.getBoundingClientRect();
    if (box.width < 4 || box.height < 4) continue;
    if (box.bottom <= 0 || box.top >= innerHeight || box.right <= 0 || box.left >= innerWidth) continue;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "none") continue;
    const points = [
      [box.left + 2, box.top + 2], [box.right - 2, box.top + 2],
      [box.left + 2, box.bottom - 2], [box.right - 2, box.bottom - 2],
      [(box.left + box.right) / 2, (box.top + box.bottom) / 2],
    ].filter(([x, y]) => x >= 0 && y >= 0 && x < innerWidth && y < innerHeight);
    for (const [x, y] of points) {
      const hit = document.elementFromPoint(x, y);
      if (hit && hit !== el && !el.contains(hit) && !hit.contains(el)) {
        found.push({element: el.tagName + " " + (el.textContent || "").trim().slice(0, 40),
                    covered_by: hit.tagName + "." + String(hit.className).slice(0, 60) + " " + (hit.textContent || "").trim().slice(0, 30),
                    x: Math.round(x), y: Math.round(y)});
        break;
      }
    }
  }
  return found;
}
