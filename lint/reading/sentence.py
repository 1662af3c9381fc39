"""Sentences, their tokens, and terms: one orderable thing, maybe written with
several tokens ("the 1× GCP rungs")."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache

from lint.lexicon import Lexicon, Token
from lint.propositions import Prop
from lint.reading.cues import (
    CHANGE_VERBS,
    CONTRAST,
    DEFINES,
    KEY_WORDS,
    ORDERABLE,
    QUOTED,
    SENTENCE_END,
    SETTING_LINE,
)


@dataclass
class Sentence:
    start: int  # offsets in the unit's text
    end: int
    text: str  # the unit text of this sentence, quotes blanked (same length)
    tokens: list[Token]  # offsets in the unit's text
    context: bool = False  # about routing (itself or its section)
    history: bool = False
    question: bool = False
    procedural: bool = False  # a procedure ("profile on 1 GPU first"), set by the reader
    props: list[Prop] = field(default_factory=list)


# ---- sentences and tokens --------------------------------------------------------------------

_VERDICT_AFTER = re.compile(r"[ \t*_`]*\w+(?:\s+\w+)?[ \t*_`]*[:=][ \t*_`]*(?-i:APPROVE|REVISE)")
_LABEL_LINE = re.compile(r"[ \t]*[`*_]*[A-Z][\w'’]*(?:[ \t]+[\w'’]+){0,3}[`*_]*[ \t]*:[ \t]+\S")


# a note's label: a few words, maybe a bracketed qualifier, then a colon
_LABELLED = re.compile(r"[ \t]*[`*_]*\w[\w'’-]*(?:[ \t]+[\w'’-]+){0,3}(?:[ \t]*\([^()\n]{1,30}\))?"
                       r"[`*_]*[ \t]*:[ \t]+\S")


# a line that stops mid-sentence: the next line goes on with it
_WRAPPED = re.compile(r"(?:,|\b(?:and|or|with|of|to|the|a|an|but|at|on|for|is|are))$", re.I)


def _setting_breaks(text: str) -> list[re.Match[str]]:
    """Line breaks before a `key: value` line that starts a setting of its own:
    after a line that ends a sentence or a lead-in, after another setting, or
    with a key that is an identifier ("lead_long:", "a3-highgpu-*:"). A wrapped
    line of prose ("…of GCP\noptions: 8× → 4×") is not one."""
    if "\n" not in text or (":" not in text and "=" not in text):
        return []
    out = []
    for m in re.finditer(r"\n", text):
        line = SETTING_LINE.match(text, m.end())
        previous = text[text.rfind("\n", 0, m.start()) + 1:m.start()].rstrip(" *_`")
        if not line:
            if _LABELLED.match(text, m.end()) and _LABELLED.match(previous):
                # "long jobs (>=4h): flex first, …" over "short (<4h): spot → …":
                # labelled notes, one per line, however short their labels
                out.append(m)
            continue
        key = line.group(0).split(":")[0].split("=")[0]
        if _WRAPPED.search(previous):
            continue  # "… with `shardable_axis: {…}` and" over "`gpu_hours: 0.5` should …"
        if previous.endswith((":", ".", "!", "?", ")")) or SETTING_LINE.match(previous) or \
                re.search(r"[_*{}/-]", key.strip(" `*")) or (
                    _LABEL_LINE.match(previous) and key.strip(" `*")[:1].isupper() and
                    not _VERDICT_AFTER.match(text, m.end())):
            # ("Steps to reproduce: …" over "Expected: …": one labelled line each; a
            # case's "Verdict: REVISE" stays with the phase it is given to)
            out.append(m)
    return out


def _open_aside(text: str, start: int, at: int) -> bool:
    """Whether a bracket opened since `start` is still open at `at` and closes
    on the same line."""
    opened = text.rfind("(", start, at)
    if opened < 0 or text.rfind(")", opened, at) >= 0:
        return False
    line_end = text.find("\n", at)
    return text.find(")", at, line_end if line_end >= 0 else len(text)) >= 0


_SHELL_SEMICOLON = re.compile(r";\s*(?:do|done|then|fi|else|elif|wait|esac)\b")


def split_sentences(text: str) -> Iterator[tuple[int, int]]:
    quotes = [(q.start(), q.end()) for q in QUOTED.finditer(text) if re.search(r"\s", q.group(0))]
    start = 0
    ends = list(SENTENCE_END.finditer(text))
    settings = _setting_breaks(text)
    if "?" in text:
        # "Dispatch checks both SLURM lanes first, so why did my job land on GCP?":
        # the clause before the question states what the asker takes as given
        settings = [*settings, *_PRESUPPOSED.finditer(text)]
    if settings:
        ends = sorted([*ends, *settings], key=lambda m: m.start())
    for m in ends:
        if m.start() < start:
            continue
        if any(a < m.start() < b - 1 for a, b in quotes):
            continue  # a quoted statement is one mention, semicolons and all
        if text[m.start()] == ";" and (_open_aside(text, start, m.start()) or
                                       _SHELL_SEMICOLON.match(text, m.start())):
            # "(short_threshold_hours; exactly 4 h is long)": one aside; "for i in 0 1;
            # do … &; done": one shell loop
            continue
        if text[max(0, m.start() - 2):m.end()] == "..." and \
                re.match(r"[`*_]?\s+[a-z]", text[m.end():m.end() + 4]):
            continue  # "`parallel -j 8 ...` launches are …": an elided command, not an end
        end = m.end() if text[m.start()] in ".!?" else m.start()
        if text[start:end].strip():
            yield start, end
        start = m.end()
    if text[start:].strip():
        yield start, len(text)


# ", so why …?", ", but how …?": a question after a clause it takes as given
_PRESUPPOSED = re.compile(r",(?=\s+(?:so|but|then|and)\s+(?:why|how|what|which|where|when|who)\b"
                          r"[^.!?\n]*\?)", re.I)
_QUOTED_VALUE = re.compile(r"[\"“«][\w-]*[./=][\w./=-]*[\"”»]")


def blank_quotes(text: str) -> str:
    """Quoted statements are not claims; a quoted word being defined ('"Short"
    means …') stays readable."""
    def blank(m: re.Match[str]) -> str:
        if not re.search(r"\s", m.group(0)) and DEFINES.match(text, m.end()):
            return m.group(0)
        if _QUOTED_VALUE.fullmatch(m.group(0)):
            return m.group(0)  # 'launch: "./train.sh"': a quoted path or setting is a value
        return " " * len(m.group(0))

    return _WORD_LIST.sub(lambda m: m.group(1) + " " * (len(m.group(0)) - len(m.group(1))),
                          QUOTED.sub(blank, text))


# "synonyms (spot VMs, preemptible, DWS, on-demand, H100 boxes)": words listed as
# words, a glossary and not a claim about what those things do
# ("in other words: …", "in plain words: …" put a claim simply; they list nothing)
_WORD_LIST = re.compile(r"(\b(?<!other\s)(?<!plain\s)(?<!simple\s)(?<!few\s)"
                        r"(?:synonyms?|aliases|(?:key)?words|phrases|"
                        r"vocabulary|spellings|wordings|jargon|terms)\b\s*(?:like|such\s+as|e\.g\.,?)?\s*)"
                        r"(?:\([^()]{1,400}\)|:[^.;\n]{1,400})", re.I)


_LIKE_ASIDE = re.compile(r",\s*(?:just\s+|much\s+)?(?:like|unlike)\s[^,;:.]{1,60},", re.I)
# Where a history note turns to today ("…, but today X", "; now X")
_PRESENT = re.compile(r"(?:[,;:—–]\s*(?:and\s+|but\s+)?|\s(?:and|but)\s+)"
                      r"(?:today|now|these\s+days|nowadays|currently)\b,?\s*", re.I)
# A history note the text says is still true: "…, and that still holds today"
_ENDORSED = re.compile(r"\b(?:still\s+(?:holds?|applies|stands)|(?:is|remains)\s+(?:still\s+)?"
                       r"(?:true|the\s+case|correct|valid|in\s+force))\b", re.I)

def tag_sentence(lexicon: Lexicon, text: str, start: int, end: int) -> Sentence:
    body = KEY_WORDS.sub(lambda m: m.group(0).replace("_", " "), blank_quotes(text[start:end]))
    contrast = CONTRAST.match(body)
    if contrast and any(t.kind == "history" for t in lexicon.tag(contrast.group(0),
                                                                 cues_alone=True)):
        # "Unlike the old failover.sh, which went GCP → SLURM → RunPod, the router
        # now …": the old thing is history, what follows it is today's claim
        body = " " * contrast.end() + body[contrast.end():]
    tokens = [Token(t.kind, t.value, t.start + start, t.end + start) for t in lexicon.tag(body)]
    if any(t.kind == "history" for t in tokens) and "like" in body:
        # "DWS VMs, like legacy preemptible VMs, are stopped after 24 h": a comparison
        # set off by commas names the old thing; the sentence is about today
        asides = [(start + m.start(), start + m.end()) for m in _LIKE_ASIDE.finditer(body)]
        tokens = [t for t in tokens if t.kind != "history" or
                  not any(a <= t.start < b for a, b in asides)]
    history = [t for t in tokens if t.kind == "history"]
    if history:
        now = _PRESENT.search(body, history[-1].end - start)
        if now:
            # "The old guide said X, but today RunPod comes first": the history
            # ends where today begins; what follows is a claim about today
            turned = _turned_subject(body, now.end(), tokens, start)
            body = " " * now.end() + body[now.end():]
            tokens = [t for t in tokens if t.start - start >= now.end()]
            if turned is not None:
                # "8× used to be in the auto-ladder, but now it's opt-in only": today's
                # "it" is the history's subject, kept in place; offsets do not move
                token, p_start, p_end, pad = turned
                a, b = token.start - start, token.end - start
                body = body[:a] + text[token.start:token.end] + body[b:p_start] + pad + \
                    body[p_end:]
                tokens = [token, *tokens]
    tokens = _elided_widths(lexicon, body, start, tokens)
    tokens = _widths_after_lengths(lexicon, body, start, tokens)
    tokens = _changed_durations(lexicon, body, start, tokens)
    sentence = Sentence(start, end, body, tokens)
    sentence.history = any(t.kind == "history" for t in tokens) and not _ENDORSED.search(body)
    # ("Q: X, so why …?": the clause before ", so why" is given, not asked)
    sentence.question = body.rstrip(" \t\n*_").endswith("?") or bool(
        re.match(r"\s*(?:\*\*)?q\s*[:.]", body, re.I) and not _PRESUPPOSED.match(
            text, end))
    return sentence


_TODAY_PRONOUN = re.compile(r"(?:it['’]s|it\s+is|they['’]re|they\s+are|it(?=\s)|they(?=\s))", re.I)
_SUBJECT_TOKENS = frozenset({"backend", "lane", "family", "width", "model", "intent"})


def _turned_subject(body: str, at: int, tokens: list[Token], start: int
                    ) -> tuple[Token, int, int, str] | None:
    """The history part's first ladder name, when today's clause opens with a
    pronoun ("…, but now it's opt-in only"): the name, the pronoun's span in
    `body`, and what stands in its place at the same length ("it's" -> "  is")."""
    m = _TODAY_PRONOUN.match(body, at)
    if not m:
        return None
    named = [t for t in tokens if t.kind in _SUBJECT_TOKENS and t.end - start <= at]
    if not named:
        return None
    word = m.group(0)
    contracted_or_full = len(word) > 4 or "'" in word or "’" in word
    verb = ("are" if word.lower().startswith("they") else "is") if contracted_or_full else ""
    return named[0], m.start(), m.end(), " " * (len(word) - len(verb)) + verb


# "Eight GPUs first, then six, then four": a bare count right after a width's
# link word is the next width (not "then two more minutes", not "then 4 h").
# The number words are the lexicon's (widths.numbers).
@lru_cache(maxsize=8)
def _elided(number_words: tuple[str, ...]) -> re.Pattern[str]:
    words = "|".join(sorted(map(re.escape, number_words), key=len, reverse=True))
    return re.compile(r"(?:,\s*(?:and\s+)?(?:then|finally)|\b(?:then|finally)|→|->|=>|"
                      r"\b(?:asks?\s+for|tries|drops?\s+to|falls?\s+(?:back\s+)?to)|"
                      r"(?P<comma>,(?:\s*and)?))\s+(?:to\s+)?"
                      rf"({words}|\d{{1,2}})(g)?\b"  # "then 4g, then 1g" names shapes
                      r"(?!\s*(?:[x×%]|\.\d|more|others?|hours?|h\b|days?|minutes?|mins?|gpu))",
                      re.I)


@lru_cache(maxsize=8)
def _then_before(number_words: tuple[str, ...]) -> re.Pattern[str]:
    words = "|".join(sorted(map(re.escape, number_words), key=len, reverse=True))
    return re.compile(rf"\b(?:at|to|on)\s+({words}|\d{{1,2}})\s*,?\s*(?:and\s+)?"
                      r"(?:then|→|->)\s+(?:(?:at|to|on)\s+)?$", re.I)


_FROM = re.compile(r"\bfrom\s+$|\bfrom\s+\S+\s+$", re.I)
_TO_COUNT = re.compile(r"\s+to\s+(\w+)\b(?![-\w]|\s*(?:[x×%.]|h\b|hrs?\b|hours?|days?|min))",
                       re.I)
_WIDTH_WORDS = re.compile(r"\bwidths?\b|\bdegrad\w*|\bnarrow\w*|\bchain\b|\brungs?\b", re.I)


def _elided_widths(lexicon: Lexicon, body: str, start: int,
                   tokens: list[Token]) -> list[Token]:
    widths = [t for t in tokens if t.kind == "width"]
    if not widths:
        return tokens
    added = []
    last_end = widths[0].end - start
    numbers = lexicon.width_numbers
    ends: set[int] = set()  # only an elided chain goes on at a comma: "2, 4 or 8 GPUs" is a set
    shaped = False  # "then 1g" names a machine shape, a width on its own
    for m in _elided(tuple(numbers)).finditer(body, last_end):
        at = start + m.start(2)
        if any(t.start <= at < t.end for t in tokens):
            continue
        if m.group("comma") and start + m.start() not in ends:
            continue  # "six, then four, two": a comma goes on from an elided width
        word = m.group(2).lower()
        value = int(word) if word.isdigit() else numbers[word]
        end = start + (m.end(3) if m.group(3) else m.end(2))
        shaped = shaped or bool(m.group(3))
        added.append(Token("width", value, at, end))
        ends.add(end)
    for w in widths:
        # "dropped straight from eight GPUs to one": the far end of a from-to span
        if not _FROM.search(body, max(0, w.start - start - 8), w.start - start):
            continue
        m = _TO_COUNT.match(body, w.end - start)
        if m and (m.group(1).lower() in numbers or m.group(1).isdigit()):
            word = m.group(1).lower()
            at = start + m.start(1)
            if not any(t.start <= at < t.end for t in tokens):
                added.append(Token("width", int(word) if word.isdigit() else numbers[word], at,
                                   start + m.end(1)))
                shaped = True  # a span's two ends are widths, however few
    then_before = _then_before(tuple(numbers))
    for w in widths:
        # "retried at 2 and then at 1 GPU": the unit written on the later width only
        m = then_before.search(body, max(0, w.start - start - 40), w.start - start)
        if m:
            word = m.group(1).lower()
            at = start + m.start(1)
            if not any(t.start <= at < t.end for t in tokens + added):
                added.append(Token("width", int(word) if word.isdigit() else numbers[word], at,
                                   start + m.end(1)))
                shaped = True
    if len(added) < 2 and not shaped and not _WIDTH_WORDS.search(body):
        # one bare number ("8 GPUs for training, then 2 for eval") is not a chain
        return tokens
    return sorted(tokens + added, key=lambda t: (t.start, t.end)) if added else tokens


@lru_cache(maxsize=8)
def _bare_at(number_words: tuple[str, ...]) -> re.Pattern[str]:
    words = "|".join(sorted(map(re.escape, number_words), key=len, reverse=True))
    return re.compile(rf"\s+(?:at|on)\s+(?:width\s+)?({words}|\d{{1,2}})\b"
                      r"(?![-\w]|[.:]\d|\s*(?:[x×%]|(?:h|hrs?|hours?|days?|min\w*|gpu-?h\w*|"
                      r"am|pm|o['’]clock|more|other|of)\b))", re.I)


def _widths_after_lengths(lexicon: Lexicon, body: str, start: int,
                          tokens: list[Token]) -> list[Token]:
    """'60 hours at four GPUs and 120 hours at two': a bare count right after a
    length, in a sentence that names a width, is the width that length is at."""
    if not any(t.kind == "width" for t in tokens):
        return tokens
    numbers = lexicon.width_numbers
    widths = {w for f in lexicon.config.families.values() for w in f.widths}
    added = []
    for d in (t for t in tokens if t.kind == "duration"):
        m = _bare_at(tuple(numbers)).match(body, d.end - start)
        if not m:
            continue
        at = start + m.start(1)
        if any(t.start <= at < t.end for t in tokens):
            continue
        word = m.group(1).lower()
        value = int(word) if word.isdigit() else numbers[word]
        if value in widths:
            added.append(Token("width", value, at, start + m.end(1)))
    return sorted(tokens + added, key=lambda t: (t.start, t.end)) if added else tokens


# "raised from four hours to twelve": the new length, its unit the old one's; the
# old length is history (a changed value states today's)
_CHANGED_FROM = re.compile(rf"\b(?:{CHANGE_VERBS}|went|goes|grew|shrank)\s+from\s+$", re.I)


def _changed_durations(lexicon: Lexicon, body: str, start: int,
                       tokens: list[Token]) -> list[Token]:
    durations = [t for t in tokens if t.kind == "duration"]
    if not durations:
        return tokens
    numbers = lexicon.duration_numbers
    words = "|".join(sorted(map(re.escape, numbers), key=len, reverse=True))
    out = list(tokens)
    for old in durations:
        if not _CHANGED_FROM.search(body[max(0, old.start - start - 40):old.start - start]):
            continue
        to = re.compile(rf"\s+to\s+(\d+(?:\.\d+)?|{words})\b", re.I).match(body, old.end - start)
        if not to:
            continue
        new = next((t for t in tokens if t.kind == "duration" and
                    t.start == start + to.start(1)), None)
        if new is None:
            # "to twelve": the number alone, in the old length's unit
            old_number = re.search(rf"\d+(?:\.\d+)?|{words}", body[old.start - start:
                                                                   old.end - start], re.I)
            if not old_number:
                continue
            word = old_number.group(0).lower()
            old_n = float(word) if word[0].isdigit() else numbers.get(word)
            word = to.group(1).lower()
            new_n = float(word) if word[0].isdigit() else numbers.get(word)
            if not old_n or not new_n:
                continue
            out.append(Token("duration", old.value / old_n * new_n, start + to.start(1),
                             start + to.end(1)))
        out.remove(old)
        # "from" before the old length compares nothing: it is the change's
        out = [t for t in out if not (t.kind in ("over", "under", "after") and
                                      old.start - 6 <= t.start < old.start)]
    return sorted(out, key=lambda t: (t.start, t.end)) if out != tokens else tokens


# ---- terms: one orderable thing, maybe written with several tokens ------------------------

@dataclass
class TermTok:
    term: tuple  # (kind, value)
    start: int
    end: int


def _gap(text: str, a_end: int, b_start: int, base: int) -> str:
    return text[a_end - base:b_start - base]


def terms(sentence: Sentence) -> list[TermTok]:
    """Orderable and model tokens merged into terms: '1× GCP rungs' is the GCP
    width 1; 'a2-ultragpu-8g (8×)' is one machine type; 'STANDARD (on-demand)'
    is one model."""
    out: list[TermTok] = []
    base = sentence.start
    for tok in sentence.tokens:
        if tok.kind not in ("backend", "lane", "family", "width", "model"):
            continue
        if tok.kind == "width" and _multiplier(sentence.text, tok.start - base, tok.end - base):
            continue  # "10× faster", "2-5x improvement": a factor, not a width
        term = (tok.kind, tok.value)
        if tok.kind == "family":
            term = ("family", tok.value)
        if out:
            prev = out[-1]
            gap = _gap(sentence.text, prev.end, tok.start, base)
            tight = not gap.strip(" (/`*") or gap.strip() in ("(", "/", "-")
            merged = _merge(prev.term, term) if tight else None
            if merged is not None and "(" in gap and term[0] == "lane" and \
                    sentence.text[tok.end - base:].lstrip(" `*_").startswith(","):
                merged = None  # "SLURM (campus-a100, campus-preempt)" lists the lanes
            if merged is not None:
                end = tok.end
                if "(" in gap and sentence.text[end - base:end - base + 1] == ")":
                    end += 1  # "STANDARD (on-demand)" is one term, brackets and all
                out[-1] = TermTok(merged, prev.start, end)
                continue
        out.append(TermTok(term, tok.start, tok.end))
    return _pointed(sentence, out)


# "… campus-preempt can sit for 2 h, so the router tries RunPod before that lane":
# a pointer back to a lane, backend or family the sentence named
_POINTER = re.compile(r"\b(?:that|this|the\s+same)\s+(lane|backend|family|partition)\b", re.I)
_POINTED_KIND = {"lane": "lane", "partition": "lane", "backend": "backend", "family": "family"}


def _pointed(sentence: Sentence, found: list[TermTok]) -> list[TermTok]:
    """Terms with each pointer back ("that lane") standing for the last term of its
    kind named before it in the sentence."""
    out = found
    for m in _POINTER.finditer(sentence.text):
        at, end = sentence.start + m.start(), sentence.start + m.end()
        kind = _POINTED_KIND[m.group(1).lower()]
        named = [t for t in found if t.term[0] == kind and t.end <= at]
        if named and not any(t.start < end and at < t.end for t in out):
            out = sorted([*out, TermTok(named[-1].term, at, end)], key=lambda t: t.start)
    return out


FACTOR_AFTER = re.compile(r"\s*(?:\w+\s+)?(?:faster|slower|speed\w*|more|less|fewer|cheaper|"
                           r"pricier|"
                           r"improvement|compression|reduction|better|worse|larger|smaller|bigger|"
                           r"higher|lower|vs\.?|versus|increase|decrease|throughput|savings|cost|"
                           r"the\s+(?:cost|price|speed|throughput)|as\s+(?:fast|much|many)|zoom|"
                           r"magnif\w*|over\s+(?:baseline|grid)|"
                           # InfiniBand and PCIe link widths: "4x ports", "8x and 12x links"
                           r"ports?|links?|arithmetic|pcie|lanes?\s+(?:of|per|wide))\b", re.I)
FACTOR_BEFORE = re.compile(r"(?:\d\s*[-–]\s*|(?<!followed\s)\bby\s+|~|≈|\babout\s+|\bnearly\s+)$",
                           re.I)


def _multiplier(text: str, start: int, end: int) -> bool:
    return bool(FACTOR_AFTER.match(text[end:end + 30]) or
                FACTOR_BEFORE.search(text[max(0, start - 20):start]))


def _merge(a: tuple, b: tuple) -> tuple | None:
    if a == b:
        return a
    ka, kb = a[0], b[0]
    pair = {ka, kb}
    if pair == {"width", "backend"}:
        w, bk = (a, b) if ka == "width" else (b, a)
        return w if bk[1] == "gcp" else None
    if pair == {"width", "family"}:
        w, f = (a, b) if ka == "width" else (b, a)
        if f[1][1] in (None, w[1]):
            return ("family", (f[1][0], w[1]))
        return None
    if pair == {"family", "backend"}:
        f, bk = (a, b) if ka == "family" else (b, a)
        if bk[1] == "gcp":
            return f
        # "a RunPod A100", "a SLURM H100": the chip of that backend's machine
        return bk if ka == "backend" else None
    if pair == {"lane", "backend"}:
        lane, bk = (a, b) if ka == "lane" else (b, a)
        return lane if bk[1] == "slurm" else None
    if pair == {"family", "model"}:
        f, m = (a, b) if ka == "family" else (b, a)
        return ("rung", (f[1][0], f[1][1], m[1]))
    if pair == {"width", "model"}:
        w, m = (a, b) if ka == "width" else (b, a)
        return ("rung", (None, w[1], m[1]))
    if ka == "rung" and kb in ("family", "width", "model"):
        fam, width, model = a[1]
        if kb == "family" and fam is None:
            return ("rung", (b[1][0], width or b[1][1], model))
        if kb == "width" and width is None:
            return ("rung", (fam, b[1], model))
        if kb == "model" and model == b[1]:
            return a
    return None


def family_of(term: tuple) -> str:
    return term[1][0]


def orderable(term: tuple) -> bool:
    return term[0] in ORDERABLE
