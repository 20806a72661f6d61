// Mermaid's own parser, in Node, for the tests that check the charts the bench writes: mermaid
// sanitises labels through DOMPurify, which needs a DOM, so happy-dom gives it a window first.
// parseFlowchart(source) -> { type, nodes: [{ id, text }], edges } or throws Mermaid's parse error.
import { Window } from 'happy-dom';

let mermaidP = null;
async function load() {
  if (!mermaidP) {
    // DOMPurify looks for a window once, when it is first imported.
    globalThis.window ??= /** @type {any} */ (new Window());
    mermaidP = import('mermaid').then((m) => m.default);
  }
  return mermaidP;
}

/** @param {string} source a flowchart's text, without the ``` fence */
export async function parseFlowchart(source) {
  const mermaid = await load();
  const { diagramType } = await mermaid.parse(source);
  const diagram = await mermaid.mermaidAPI.getDiagramFromText(source);
  const db = /** @type {any} */ (diagram.db);
  const vertices = [...db.getVertices().values()];
  return { type: diagramType, nodes: vertices.map((v) => ({ id: v.id, text: v.text })), edges: db.getEdges() };
}

/** Every ```mermaid block of a Markdown text. */
export const mermaidBlocks = (markdown) => [...markdown.matchAll(/```mermaid\n([\s\S]*?)```/g)].map((m) => m[1]);
