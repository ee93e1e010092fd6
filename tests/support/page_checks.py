"""What every page is checked for at phone and desktop widths: axe's violations and sideways overflow."""

from __future__ import annotations

from sitegen import ROOT

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


OVERFLOW = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"


RUN_AXE = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join("; ")})`);
}"""


WIDTHS = (360, 390, 768, 1024, 1280, 1440)


def overflow_by_width(page) -> dict[int, int]:
    found = {}
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        found[width] = page.evaluate(OVERFLOW)
    return {width: extra for width, extra in found.items() if extra > 0}


def assert_accessible(page, widths=(390, 1280), schemes=("light", "dark")) -> None:
    """axe finds no violation and the page does not scroll sideways, at each width in each colour scheme."""
    page.add_script_tag(path=str(AXE))
    for scheme in schemes:
        page.emulate_media(color_scheme=scheme)
        for width in widths:
            page.set_viewport_size({"width": width, "height": 800})
            assert page.evaluate(OVERFLOW) <= 0, f"the page scrolls sideways at {width} px ({scheme})"
            found = page.evaluate(RUN_AXE)
            assert found == [], f"axe at {width} px ({scheme}): {found}"
