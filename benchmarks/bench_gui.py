"""GUI latencies: click-to-pick on a ~200k-face scene, and page load to a drawn scene in headless Chromium.

Usage: ``python benchmarks/bench_gui.py [--rays 300] [--loads 3] [--objects PATH]``.

* pick: median time of :class:`synergai.gui.picking.ScenePicker` per click ray on bench_pick's scene
  (10 icospheres, 204,800 faces), for each ray backend; and the whole server-side click on the demo
  scene (store read + cached picker + ray cast, what ``ClientSession.click`` does).
* load: from ``page.goto`` until (a) the page's load event, (b) the tab's session exists and the server
  has sent every object, (c) the canvas shows the scene: non-blank and unchanged between two
  screenshots 0.3 s apart.
  Median of ``--loads`` fresh tabs, for the demo scene (meshes) and the largest scene of the objects file
  (boxes). Needs Debian's chromium at /usr/bin/chromium and the playwright package.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from io import BytesIO
from pathlib import Path

import numpy as np

from bench_pick import make_scene  # benchmarks/ is the script's directory
from synergai.geometry.raycast import embree_available
from synergai.gui import serve
from synergai.gui.app import GuiApp
from synergai.gui.picking import ScenePicker
from synergai.llm import ScriptedModel
from synergai.scene.catalog import SceneCatalog
from synergai.scene.model import SceneGraph, SceneObject
from synergai.scene.store import SceneStore

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
DEFAULT_OBJECTS = Path(__file__).resolve().parents[2] / "shared" / "data" / "scannet" / "objects_gt.json"


def _rays(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    origins = np.tile([2.0, -4.0, 3.0], (n, 1))
    targets = rng.uniform([-0.5, -0.5, 0.0], [4.5, 1.5, 1.0], size=(n, 3))
    return origins, targets - origins


def bench_pick(n_rays: int) -> list[tuple[str, str, float, int]]:
    """(what, backend, median ms per click, hits) on the 200k-face scene and on the demo's click path."""
    meshes = make_scene()
    graph = SceneGraph("bench", [
        SceneObject(k, "sphere", tuple(float(x) for x in m.bounds().mean(axis=0)),
                    tuple(float(x) for x in np.ptp(m.bounds(), axis=0))) for k, m in meshes.items()])
    origins, dirs = _rays(n_rays)
    rows = []
    from synergai.geometry.raycast import RayPicker

    for backend in (["embree"] if embree_available() else []) + ["numpy"]:
        picker = ScenePicker(graph, meshes, ray_picker=lambda ids, b=backend: RayPicker(
            {i: meshes[i] for i in ids}, backend=b))  # type: ignore[arg-type]
        times, hits = [], 0
        for o, d in zip(origins, dirs, strict=True):
            t0 = time.perf_counter()
            hits += picker.pick(o, d) is not None
            times.append((time.perf_counter() - t0) * 1e3)
        faces = sum(m.n_faces for m in meshes.values())
        rows.append((f"ScenePicker, {faces} faces", backend, statistics.median(times), hits))
    with tempfile.TemporaryDirectory() as tmp:
        catalog = SceneCatalog(SceneStore(Path(tmp) / "s.sqlite3"))
        graph = catalog.open("demo")
        app = GuiApp(catalog, lambda: ScriptedModel([]), "demo")
        ids = graph.ids
        app.picker("demo", graph, ids)  # first click builds and caches the mesh picker
        lo, hi = graph.box_array().mins.min(axis=0), graph.box_array().maxs.max(axis=0)
        rng = np.random.default_rng(1)
        origin = np.array([0.5 * (lo[0] + hi[0]), lo[1] - 4.0, 6.0])
        targets = rng.uniform(lo, hi, size=(n_rays, 3))
        times, hits = [], 0
        for t in targets:
            t0 = time.perf_counter()
            hits += app.picker("demo", catalog.store.load("demo"), ids).pick(origin, t - origin) is not None
            times.append((time.perf_counter() - t0) * 1e3)
        rows.append(("server click on demo (load+pick)", "auto", statistics.median(times), hits))
        catalog.store.close()
    return rows


def _stable_canvas(page, box: dict, previous: np.ndarray | None) -> tuple[bool, np.ndarray]:
    from PIL import Image

    png = page.screenshot(clip={"x": box["x"], "y": box["y"], "width": box["width"], "height": box["height"]})
    img = np.asarray(Image.open(BytesIO(png)).convert("L").reduce(4), dtype=np.float64)
    drawn = float((np.abs(img - np.median(img)) > 12).mean()) > 0.05 and img.std() > 8
    stable = previous is not None and previous.shape == img.shape and np.abs(img - previous).mean() < 0.5
    return drawn and stable, img


def bench_load(objects: Path, loads: int) -> list[tuple[str, int, float, float, float]]:
    """(scene, objects, median s to page loaded, to scene sent, to rendered) in headless Chromium."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        raise SystemExit(f"{CHROMIUM} missing: apt-get install -y chromium")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        catalog = SceneCatalog(SceneStore(Path(tmp) / "s.sqlite3"), objects)
        f = catalog.objects_file
        assert f is not None
        largest = max(f.scene_ids, key=lambda s: len(f.objects(s)))
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for scene in ("demo", largest):
                n = len(catalog.open(scene))
                handle = serve(catalog, lambda: ScriptedModel([]), port=0, scene_id=scene, block=False,
                               poll_seconds=0)
                t_page, t_sent, t_draw = [], [], []
                for _ in range(loads):
                    seen = set(handle.app.clients)
                    page = browser.new_page(viewport={"width": 1400, "height": 850})
                    t0 = time.perf_counter()
                    page.goto(handle.url)
                    t_page.append(time.perf_counter() - t0)
                    cid = None
                    while cid is None:
                        cid = next((c for c in handle.app.clients if c not in seen), None)
                        time.sleep(0.01)
                    s = handle.app.clients[cid]
                    while len(s.view.drawn) < n:
                        time.sleep(0.01)
                    t_sent.append(time.perf_counter() - t0)
                    page.locator("canvas").first.wait_for()
                    box = max((c.bounding_box() for c in page.locator("canvas").all()),
                              key=lambda b: b["width"] * b["height"])
                    prev, deadline = None, time.perf_counter() + 120
                    while time.perf_counter() < deadline:
                        ok, prev = _stable_canvas(page, box, prev)
                        if ok:
                            break
                        time.sleep(0.3)
                    t_draw.append(time.perf_counter() - t0)
                    page.close()
                handle.stop()
                rows.append((scene, n, statistics.median(t_page), statistics.median(t_sent),
                             statistics.median(t_draw)))
            browser.close()
        catalog.store.close()
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rays", type=int, default=300)
    ap.add_argument("--loads", type=int, default=3)
    ap.add_argument("--objects", type=Path, default=DEFAULT_OBJECTS)
    args = ap.parse_args()
    print(f"{'pick':<38} {'backend':<8} {'median ms/click':>16} {'hits':>6}")
    for what, backend, ms, hits in bench_pick(args.rays):
        print(f"{what:<38} {backend:<8} {ms:>16.3f} {hits:>6}")
    print()
    print(f"{'page load -> drawn scene':<26} {'objects':>7} {'page s':>7} {'sent s':>7} {'rendered s':>11}")
    for scene, n, a, b, c in bench_load(args.objects, args.loads):
        print(f"{scene:<26} {n:>7} {a:>7.2f} {b:>7.2f} {c:>11.2f}")


if __name__ == "__main__":
    main()
