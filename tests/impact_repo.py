"""A real git repository for impact tests: the Tolaria files the seeds cite, then one change per commit.

The quoted passages of ``corpus/seeds/001_*.txt`` (lines 31, 39–41, 51, 61) are written as the source
code they were rendered from, with the backticks, line breaks and indentation the plain-text
rendering dropped, so quotation matching has to normalise for real. Lookalikes that must not match
(``failMessage``'s ``(action: AgentAction)``, a second ``return {`` without ``isError``) sit beside them.

History (``main``)::

    c0  initial          every cited file; the four quotations intact
    c1  uncited          README.md gains a copy of the index.js tool sentence (an uncited file)
    c2  modify-quoted    aiAgentStreamCallbacks.ts: status 'done' → 'completed' in the quoted line
    c3  move-quoted      vault.js's stale-write guard moves to the new mcp-server/mtime-guard.js
    c4  duplicate        index.js gains a second handler with the same error return
    c5  rename           mcp-server/index.js → mcp-server/server.js
    c6  delete           src/lib/aiAgentSession.ts deleted
    c7  vault-again      vault.js's updateNote gains an fsync (the moved guard untouched)

and ``vault_only``, a branch off c0 whose one commit edits a comment in vault.js.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ImpactRepo", "build_impact_repo", "git"]

VAULT_JS = """\
import fs from 'node:fs/promises'
import path from 'node:path'
import matter from 'gray-matter'

// Resolve a note path inside one of the active vault roots.
export function resolveNotePath(vaultPath, notePath) {
  const absPath = path.resolve(vaultPath, notePath)
  if (!absPath.startsWith(path.resolve(vaultPath) + path.sep)) {
    throw new Error(`Path escapes the vault: ${notePath}`)
  }
  return absPath
}

export async function getNote(vaultPath, notePath) {
  const absPath = resolveNotePath(vaultPath, notePath)
  const raw = await fs.readFile(absPath, 'utf-8')
  const stat = await fs.stat(absPath)
  const { data, content } = matter(raw)
  return { path: notePath, frontmatter: data, content: content.trim(), mtimeMs: stat.mtimeMs }
}
@@GUARD@@
export async function updateNote(vaultPath, notePath, content, expectedMtime) {
  const absPath = resolveNotePath(vaultPath, notePath)
  await assertNotModified(absPath, expectedMtime)
  const tmpPath = `${absPath}.${process.pid}.tmp`
  try {
    await fs.writeFile(tmpPath, content, 'utf-8')
@@FSYNC@@    await fs.rename(tmpPath, absPath)
  } catch (error) {
    await fs.rm(tmpPath, { force: true })
    throw error
  }
  const stat = await fs.stat(absPath)
  return { path: notePath, absolutePath: absPath, vaultRoot: vaultPath, mtimeMs: stat.mtimeMs }
}
"""

GUARD = """
export async function assertNotModified(absPath, expectedMtime) {
  const stat = await fs.stat(absPath)
  if (expectedMtime === undefined || expectedMtime === null) return
  if (stat.mtimeMs === expectedMtime) return

  throw new Error(
    `Note was modified since read: expectedMtime ${expectedMtime} but on-disk mtimeMs is ${stat.mtimeMs}. Re-read the note and retry.`,
  )
}
"""

INDEX_JS = """\
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { callTool, readResource } from './tool-service.js'

const TOOLS = [
  {
    name: 'get_note',
    description: 'Read a note: parsed frontmatter, trimmed body and file mtimeMs.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'update_note',
    description: `Replace the complete content of an existing note.
      Optionally pass expectedMtime (the note mtimeMs returned by get_note)
      to fail-fast when the note changed between read and write.`,
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string' },
        content: { type: 'string' },
        expectedMtime: { type: 'number' },
      },
      required: ['path', 'content'],
    },
  },
]

const server = new Server({ name: 'tolaria', version: '1.0.0' }, { capabilities: { tools: {} } })

server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }))

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  try {
    const result = await callTool(request.params.name, request.params.arguments ?? {})
    return { content: [{ type: 'text', text: JSON.stringify(result) }] }
  } catch (error) {
    return {
      content: [{ type: 'text', text: `Error: ${error.message}` }],
      isError: true,
    }
  }
})
@@SECOND@@
await server.connect(new StdioServerTransport())
"""

SECOND_HANDLER = """
server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
  try {
    return await readResource(request.params.uri)
  } catch (error) {
    return {
      content: [{ type: 'text', text: `Error: ${error.message}` }],
      isError: true,
    }
  }
})
"""

CALLBACKS_TS = """\
import type { AgentAction, AgentMessage } from './aiAgentConversation'

export interface StreamCallbacks {
  onText(delta: string): void
  onDone(): void
  onError(message: string): void
}

export function finalizeMessage(message: AgentMessage): AgentMessage {
  return {
    ...message,
    streaming: false,
    actions: message.actions.map((action) => (
      action.status === 'pending' ? { ...action, status: '@@DONE@@' as const } : action
    )),
  }
}

export function failMessage(message: AgentMessage, error: string): AgentMessage {
  return {
    ...message,
    streaming: false,
    error,
    actions: message.actions.map((action: AgentAction) => (
      action.status === 'pending' ? { ...action, status: 'error' as const } : action
    )),
  }
}
"""

OTHER_FILES = {
    "mcp-server/tool-service.js": """\
import { getNote, updateNote } from './vault.js'

export async function callTool(name, args) {
  if (name === 'get_note') return getNote(args.vaultPath, args.path)
  if (name === 'update_note') {
    const result = await updateNote(args.vaultPath, args.path, args.content, args.expectedMtime)
    emit('vault_changed', { path: result.path })
    return result
  }
  throw new Error(`Unknown tool: ${name}`)
}

export async function readResource(uri) {
  return { contents: [{ uri, text: '' }] }
}

function emit(type, payload) {
  process.stdout.write(JSON.stringify({ type, payload }) + '\\n')
}
""",
    "src/lib/aiAgentSession.ts": """\
export async function sendAgentMessage(prompt: string): Promise<void> {
  if (!prompt.trim()) return
  // allocate a streaming message, an abort controller and a per-request tool map
}
""",
    "src/lib/aiAgentConversation.ts": """\
export interface AgentAction { id: string; status: 'pending' | 'done' | 'error' }
export interface AgentMessage { text: string; streaming: boolean; error?: string; actions: AgentAction[] }
""",
    "src/utils/streamAiAgent.ts": "export function streamAiAgent(): void {}\n",
    "src/utils/ai-agent.ts": "export const GUIDANCE = 'Read vault AGENTS.md first.'\n",
    "src-tauri/src/codex_cli.rs": "pub fn codex_command() -> Vec<String> { vec![\"codex\".into(), \"exec\".into(), \"--json\".into()] }\n",
    "README.md": "# Tolaria\n\nA Markdown knowledge base.\n",
    "package.json": "{\n  \"name\": \"tolaria\"\n}\n",
}

README_TOOLS = """
## MCP tools

`update_note`: Optionally pass expectedMtime (the note mtimeMs returned by get_note) to fail-fast
when the note changed between read and write.
"""


@dataclass(frozen=True)
class ImpactRepo:
    """The built repository: its folder and the commit id of each step (``c0`` … ``c7``, ``vault_only``)."""

    path: Path
    commits: dict[str, str]

    def __getitem__(self, name: str) -> str:
        return self.commits[name]


def git(repo: Path, *args: str) -> str:
    """Run git in ``repo`` with a fixed identity and dates; return its stdout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_DATE="2026-10-14T12:00:00Z", GIT_COMMITTER_DATE="2026-10-14T12:00:00Z")
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


def _write(repo: Path, path: str, text: str) -> None:
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def _commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def build_impact_repo(path: Path) -> ImpactRepo:
    """Create the repository described in the module docstring at ``path`` (an empty folder)."""
    if shutil.which("git") is None:  # pragma: no cover - git is a hard requirement of impact
        raise RuntimeError("impact tests need the git binary")
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Impact Test")
    git(path, "config", "user.email", "impact@example.org")
    git(path, "config", "commit.gpgsign", "false")
    vault = VAULT_JS.replace("@@FSYNC@@", "")
    commits = {}
    _write(path, "mcp-server/vault.js", vault.replace("@@GUARD@@", GUARD))
    _write(path, "mcp-server/index.js", INDEX_JS.replace("@@SECOND@@", ""))
    _write(path, "src/lib/aiAgentStreamCallbacks.ts", CALLBACKS_TS.replace("@@DONE@@", "done"))
    for name, text in OTHER_FILES.items():
        _write(path, name, text)
    commits["c0"] = _commit(path, "initial")

    _write(path, "README.md", OTHER_FILES["README.md"] + README_TOOLS)
    commits["c1"] = _commit(path, "uncited: document the MCP tools")

    _write(path, "src/lib/aiAgentStreamCallbacks.ts", CALLBACKS_TS.replace("@@DONE@@", "completed"))
    commits["c2"] = _commit(path, "modify a quoted line")

    _write(path, "mcp-server/vault.js", vault.replace("@@GUARD@@", "").replace(
        "import matter from 'gray-matter'\n", "import matter from 'gray-matter'\nimport { assertNotModified } from './mtime-guard.js'\n"))
    _write(path, "mcp-server/mtime-guard.js", "import fs from 'node:fs/promises'\n" + GUARD)
    commits["c3"] = _commit(path, "move the quoted guard to mtime-guard.js")

    _write(path, "mcp-server/index.js", INDEX_JS.replace("@@SECOND@@", SECOND_HANDLER).replace(
        "CallToolRequestSchema, ListToolsRequestSchema", "CallToolRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema"))
    commits["c4"] = _commit(path, "duplicate the quoted error return")

    git(path, "mv", "mcp-server/index.js", "mcp-server/server.js")
    commits["c5"] = _commit(path, "rename index.js to server.js")

    git(path, "rm", "-q", "src/lib/aiAgentSession.ts")
    commits["c6"] = _commit(path, "delete aiAgentSession.ts")

    vault_c3 = (path / "mcp-server/vault.js").read_text(encoding="utf-8")
    _write(path, "mcp-server/vault.js", vault_c3.replace(
        "    await fs.rename(tmpPath, absPath)\n",
        "    await (await fs.open(tmpPath, 'r+')).sync()\n    await fs.rename(tmpPath, absPath)\n"))
    commits["c7"] = _commit(path, "fsync before rename")

    git(path, "checkout", "-q", "-b", "vault-only", commits["c0"])
    text = (path / "mcp-server/vault.js").read_text(encoding="utf-8")
    _write(path, "mcp-server/vault.js", text.replace("// Resolve a note path", "// Resolve a (relative) note path"))
    commits["vault_only"] = _commit(path, "vault.js: comment only")
    git(path, "checkout", "-q", "main")
    return ImpactRepo(path, commits)
