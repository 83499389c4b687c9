"""Browser smoke test of the JupyterLab front end (under a minute; called by .ci/run after the tests).

It enables the smolqat.lab server extension in this environment (as `smolqat-lab` does), starts `jupyter lab` on
127.0.0.1 with a random token and a free port, and then works the server the way the browser does:

1. open and save every notebook in nbs/ through the REST API with the metadata Lab gives it (its kernelspec and
   `language_info`): each file must stay byte for byte as committed (the save hook), and is restored if it does not;
2. open nbs/index.ipynb in a session (REST), run its code cells over the kernel's websocket, and check the outputs: no
   error, no warning, the figure drawn, and widget progress bars chosen in this kernel;
3. with a Chromium installed, take a headless screenshot of the rendered notebook.

The server log, the executed notebook and the screenshot go to --out (default runs/lab_smoke/). Only the processes it
started are stopped. When JupyterLab is not installed it says so and exits 0.

    python tools/lab_smoke.py [--out DIR]
"""
import argparse, asyncio, json, os, secrets, shutil, signal, socket, subprocess, sys, time, uuid
import importlib.util, urllib.request, urllib.error
from pathlib import Path

def free_port()->int:
    with socket.socket() as s: s.bind(("127.0.0.1", 0)); return s.getsockname()[1]

class Server:
    "A `jupyter lab` process on 127.0.0.1 (its own process group), with its REST API."
    def __init__(self, root:Path, log:Path):
        self.port, self.token, self.root = free_port(), secrets.token_hex(16), root
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = open(log, "w")
        self.proc = subprocess.Popen([sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
                                      f"--ServerApp.port={self.port}", f"--IdentityProvider.token={self.token}",
                                      f"--ServerApp.root_dir={root}", "--ServerApp.port_retries=0",
                                      *(["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else [])],
                                     cwd=root, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)

    def api(self, method:str, path:str, body=None, timeout=30):
        req = urllib.request.Request(f"{self.base}{path}", method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"token {self.token}",
                                              "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            data = r.read()
            return json.loads(data) if data else None

    def wait_ready(self, timeout=60):
        t = time.time()
        while time.time() - t < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyter lab exited with {self.proc.returncode}; see {self.log.name}")
            try: return self.api("GET", "/api/status", timeout=2)
            except (urllib.error.URLError, ConnectionError, OSError): time.sleep(0.3)
        raise TimeoutError(f"jupyter lab did not answer within {timeout} s; see {self.log.name}")

    def stop(self):
        "Shut the server down (its kernels with it); kill its process group if it does not exit."
        if self.proc.poll() is None:
            try: self.api("POST", "/api/shutdown", timeout=5)
            except Exception: pass
            try: self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL); self.proc.wait(5)
        self.log.close()

def open_save_all(srv:Server)->list:
    "Open and save every notebook in nbs/ as Lab does; the names of those whose file changed (restored afterwards)."
    from smolqat.lab import lab_metadata
    changed = []
    for p in sorted((srv.root / "nbs").glob("*.ipynb")):
        before, rel = p.read_bytes(), p.relative_to(srv.root).as_posix()
        model = srv.api("GET", f"/api/contents/{rel}?content=1")
        model["content"]["metadata"].update(lab_metadata())
        srv.api("PUT", f"/api/contents/{rel}", dict(type="notebook", format="json", content=model["content"]))
        if p.read_bytes() != before: changed.append(p.name); p.write_bytes(before)
    return changed

async def run_cells(srv:Server, kernel_id:str, cells:list, timeout=120)->list:
    "Execute each source over the kernel's websocket channels, as the browser does; per cell (reply status, outputs)."
    from tornado.websocket import websocket_connect
    from tornado.httpclient import HTTPRequest
    session = uuid.uuid4().hex
    ws = await websocket_connect(HTTPRequest(f"ws://127.0.0.1:{srv.port}/api/kernels/{kernel_id}/channels?session_id={session}",
                                             headers={"Authorization": f"token {srv.token}"}))
    results = []
    try:
        for src in cells:
            msg_id = uuid.uuid4().hex
            ws.write_message(json.dumps(dict(channel="shell",
                                             header=dict(msg_id=msg_id, msg_type="execute_request", session=session,
                                                                           username="smoke", version="5.3", date=""),
                                             parent_header={}, metadata={}, buffers=[],
                                             content=dict(code=src, silent=False, store_history=True,
                                                          user_expressions={},
                                                          allow_stdin=False, stop_on_error=True))))
            outputs, status, idle = [], None, False
            while status is None or not idle:
                raw = await asyncio.wait_for(ws.read_message(), timeout)
                if raw is None: raise ConnectionError("kernel websocket closed")
                m = json.loads(raw)
                if m.get("parent_header", {}).get("msg_id") != msg_id: continue
                t = m["header"]["msg_type"]
                if m["channel"] == "shell" and t == "execute_reply": status = m["content"]["status"]
                elif t == "status": idle = m["content"]["execution_state"] == "idle"
                elif t in ("stream", "display_data", "execute_result", "error"):
                    outputs.append(dict(output_type=t, **m["content"]))
            results.append((status, outputs))
    finally: ws.close()
    return results

def to_nbformat(o:dict)->dict:
    "A kernel output message's content as an nbformat output."
    import nbformat
    t = o["output_type"]
    if t == "stream": return nbformat.v4.new_output("stream", name=o["name"], text=o["text"])
    if t == "error":
        return nbformat.v4.new_output("error", ename=o["ename"], evalue=o["evalue"], traceback=o["traceback"])
    if t == "execute_result":
        return nbformat.v4.new_output(t, data=o["data"], metadata=o.get("metadata", {}),
                                      execution_count=o.get("execution_count"))
    return nbformat.v4.new_output(t, data=o["data"], metadata=o.get("metadata", {}))

def chromium()->str:
    return next((c for c in ("chromium", "chromium-browser", "google-chrome",
                             "google-chrome-stable") if shutil.which(c)), None)

def screenshot(srv:Server, out:Path)->str:
    "A headless screenshot of nbs/index.ipynb rendered by Lab; what happened, in words."
    exe = chromium()
    if exe is None: return "no Chromium installed: screenshot skipped"
    png = out / "index.png"
    url = f"{srv.base}/lab/tree/nbs/index.ipynb?token={srv.token}"
    proc = subprocess.Popen([exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                             "--window-size=1400,1800",
                             "--virtual-time-budget=20000", f"--screenshot={png}", url],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try: log = proc.communicate(timeout=90)[0]
    finally:                                     # Chromium's helper processes share its process group
        try: os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError: pass
        proc.wait()
    if not png.exists(): raise RuntimeError(f"{exe} wrote no screenshot ({proc.returncode}): {log[-1500:]}")
    return f"screenshot {png} ({png.stat().st_size:,} bytes)"

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=None, help="folder for the server log, the executed notebook and the screenshot")
    args = ap.parse_args(argv)
    if importlib.util.find_spec("jupyterlab") is None:
        print('lab_smoke: skipped: JupyterLab is not installed in this environment (pip install -e ".[lab]")'); return 0
    import nbformat
    from smolqat.core import project_root
    from smolqat.lab import enable_lab_extension, output_problems
    t0, root = time.time(), project_root()
    out = Path(args.out) if args.out else root / "runs" / "lab_smoke"
    out.mkdir(parents=True, exist_ok=True)
    enable_lab_extension()
    srv, problems, notes = Server(root, out / "server.log"), [], []
    try:
        srv.wait_ready()
        notes.append(f"server up in {time.time() - t0:.1f} s")
        changed = open_save_all(srv)
        if changed: problems.append(f"open + save changed {', '.join(changed)} (restored)")
        notes.append(f"open + save of {len(list((root / 'nbs').glob('*.ipynb')))} notebooks: {len(changed)} changed")
        nb = nbformat.read(root / "nbs" / "index.ipynb", as_version=4)
        s = srv.api("POST", "/api/sessions",
                    dict(path="nbs/index.ipynb", name="index.ipynb", type="notebook", kernel=dict(name="python3")))
        code = [c for c in nb.cells if c.cell_type == "code"]
        probe = "from smolqat.core import progress_kind; print(progress_kind())"
        results = asyncio.run(run_cells(srv, s["kernel"]["id"], [c.source for c in code] + [probe]))
        srv.api("DELETE", f"/api/sessions/{s['id']}")
        for c, (status, outs) in zip(code, results): c.outputs = [to_nbformat(o) for o in outs]
        nbformat.write(nb, out / "index.executed.ipynb")
        bad = [i for i, (status, _) in enumerate(results) if status != "ok"]
        if bad: problems.append(f"index.ipynb: cells {bad} did not run ok")
        problems += [f"index.ipynb cell {i}: {what}" for i, what in output_problems(out / "index.executed.ipynb")]
        if not any("image/png" in o.get("data", {}) for c in code for o in c.outputs):
            problems.append("index.ipynb drew no figure")
        kind = "".join(o.get("text", "") for o in results[-1][1]).strip()
        if kind != "widget": problems.append(f"progress bars in a Lab kernel are {kind!r}, expected 'widget'")
        notes.append(f"index.ipynb: {len(code)} cells run over the kernel websocket, figure drawn, progress bars: "
                     f"{kind}")
        notes.append(screenshot(srv, out))
        if "smolqat: notebooks of a smolqat checkout" not in (out / "server.log").read_text():
            problems.append("the smolqat.lab extension did not load")
    finally: srv.stop()
    took = time.time() - t0
    print("lab_smoke: " + ("FAILED" if problems else "ok") + f" in {took:.0f} s\n  " + "\n  ".join(notes + problems))
    return 1 if problems else 0

if __name__ == "__main__": sys.exit(main())
