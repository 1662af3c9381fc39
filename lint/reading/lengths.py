"""Length-class claims: leads per class, the short threshold, worked examples
at a degraded width, and the FLEX_START maximum duration."""

from __future__ import annotations

import itertools
import re

from lint.lexicon import Token
from lint.reading.base import ReaderBase
from lint.reading.cues import (
    ANY_LENGTH,
    CHANGE_VERBS,
    CLASS_WORDS,
    LENGTH_TOPIC,
    MAX_CUE,
    PAST,
    STRONG_THEN,
)
from lint.reading.sentence import TermTok

# "at every width", "whatever width it lands on": a claim about all widths
_ALL_WIDTHS = re.compile(r"\b(?:all|every|each)\s+(?:(?:two|three|four|of\s+the)\s+)?widths?\b|"
                         r"\bevery\s+one\s+of\s+(?:them|those|these)\b|\bat\s+every\s+width\b",
                         re.I)
_EVERY_WIDTH = re.compile(r"\b(?:at|on)\s+(?:every|each|any|all(?:\s+the)?)\s+widths?\b|"
                          r"\bwhatever\s+(?:the\s+)?width\b|\bat\s+all\s+widths\b|"
                          r"\bno\s+matter\s+(?:the\s+|which\s+)?width\b", re.I)

_PRONOUN_STAYS = re.compile(r"\b(?:it|the\s+job)\s+(?:stays|remains|is\s+still|counts\s+as)\s+"
                            r"(?:short|long)\b", re.I)
_LENGTH_AT = re.compile(r"\s+(?:at|on)\s+(?:width\s+)?")
_LED_RUNGS = re.compile(r"[^,;:.]*?\brungs?\s+with\s+", re.I)
_ANOTHER_ARTICLE = re.compile(r"(?<!\bis\s)(?<!\bbecomes\s)(?<!\binto\s)(?<!\bmakes\s)(?<!=\s)"
                              r"(?<!→\s)(?<!\bas\s)\ban?\s+$", re.I)
_ANOTHER_JOB = re.compile(r"[\s-]*(?:jobs?|runs?|phases?|requests?)\b", re.I)
# "long, not short" / "long rather than short": the second class is the denied one
_CONTRAST = re.compile(r",?\s*(?:not|rather\s+than|instead\s+of)\s+(?:a\s+)?(?:short|long)\b",
                       re.I)


# a new clause before a duration: ", so a 30 h job …" (not ':' — "max run: 72 h")
_NEW_CLAUSE = re.compile(r",\s+(?:so|and|but|which|while|though|although|whereas)\b|;", re.I)


_PRONOUN_LEAD = re.compile(r"\W*(?:so\s+|and\s+|then\s+)?(?:it|this\s+job|that\s+job|the\s+job|"
                           r"such\s+a\s+job)\s+(?:still\s+|then\s+|therefore\s+)?"
                           r"(?:leads?|starts?|begins?|opens?)\s+(?:with|on)\b|"
                           # "It tries a2-ultragpu-8g on spot first"
                           r"\W*(?:so\s+|and\s+|then\s+)?(?:it|this\s+job|that\s+job|the\s+job)\s+"
                           r"(?:still\s+|will\s+)?(?:tries|try|goes\s+to|lands\s+on)\s+"
                           r"(?=[^.;:]*\bfirst\b)", re.I)
_OTHER_CLASS = re.compile(r"[;,]\s*(?:and\s+)?(?:anything|everything|any\s+job|jobs?|ones?|"
                          r"those)\s+(shorter|longer)\b", re.I)
# ("It is long, and long jobs lead with …" names one class twice)
_BOTH_CLASSES = re.compile(r"\b(short|long)\s*,?\s*(?:or|and|/)\s*(?!\1)(?:short|long)\b", re.I)
_HEADING_CLASS = re.compile(r"^\W*(short|long)(?:[- ](?:running|lived))?\s+(?:jobs?|runs?|"
                            r"phases?|work)\s*(?:\([^)]*\))?\W*$", re.I)


# "### Provisioning order for a long job (one width)", "## Long-job order"
_HEADING_CLASS_ORDER = re.compile(r"\b(?:order|ladder|sequence|fallbacks?|priority)\b[^()]*?\b"
                                  r"(?:for|of)\s+(?:an?\s+|all\s+)?(short|long)[- ]?(?:running\s+)?"
                                  r"(?:jobs?|runs?|phases?)\b|^\W*(short|long)[- ]jobs?\s+"
                                  r"(?:order|ladder|sequence|fallbacks?)\b", re.I)


_CONTRAST_JOINT = re.compile(r";|,\s*(?:while|whereas)\b|\swhereas\b|,\s*but\b")
# "Short means under four hours, so at width 2 it leads with …": a clause about one
# job, after a class's definition, is that job's
_JOB_CLAUSE = re.compile(r",\s*so\s+(?:(?:at|on)\s+[\w×-]+(?:\s+[\w×-]+)?\s+)?"
                         r"(?:it|the\s+job|this\s+job|that\s+job|the\s+run)\s", re.I)


def heading_class(heading: str) -> str | None:
    """'short' or 'long' when the heading is just a length class ("### Long jobs")
    or the order of one ("### Provisioning order for a long job")."""
    m = _HEADING_CLASS.match(heading) or _HEADING_CLASS_ORDER.search(heading)
    if not m or len(re.findall(r"\b(?:short|long)\b", heading, re.I)) != 1:
        return None
    return next(g for g in m.groups() if g).lower()


_A_BOUND = re.compile(r"\b(?:fits?|fitting)\s+(?:in|into|within|under|inside)\s+"
                      r"(?:an?\s+|the\s+)?$", re.I)
# FLEX_START's maximum named: "the 168 h limit", "fits within", "max run duration"
_FLEX_LIMIT = re.compile(r"\b(?:limit|cap|max(?:imum)?(?:[\s_]run)?|ceiling|fits?|run[\s_]duration|"
                         r"lives?|\d+\s*days?)\b|max_run", re.I)
# "5 h is over the short threshold", "3 h, under the cutoff": a length compared with it
_BESIDE_THRESHOLD = re.compile(r"\W{0,3}(?:(?:is|are|was|sits|falls|lands)\s+)?(?:well\s+|just\s+|"
                               r"still\s+)?(?P<cmp>over|above|past|beyond|under|below)\s+"
                               r"(?:the|our|its)\s+(?:[\w-]+\s+){0,2}?(?:threshold|cut-?off|"
                               r"boundary|line)\b", re.I)
# "…loses its FLEX_START rungs", "gets no flex-start rung": a FLEX_START offer taken away
_LOSES_FLEX = re.compile(r"\b(?:loses?|drops?|no|without|never\s+gets?)\s+(?:its\s+|any\s+|a\s+|"
                         r"the\s+|their\s+)?\W{0,2}$", re.I)
_CHANGED_TO = re.compile(rf"[\w-]*\s+(?:was\s+|has\s+been\s+|is\s+|got\s+)?{CHANGE_VERBS}\s+"
                         r"(?:from\s+[^,;:.]{1,25}?\s+)?to\s+", re.I)
_GPUS_TIMES_HOURS = re.compile(
    r"(?<![\w.])(?P<w>\d{1,2})\s*(?:gpus?|[x×])\s*[×x*]\s*(?P<h>\d+(?:\.\d+)?)\s*(?:h|hrs?|hours?)\b|"
    r"(?<![\w.])(?P<h2>\d+(?:\.\d+)?)\s*(?:h|hrs?|hours?)\s*[×x*]\s*(?P<w2>\d{1,2})\s*gpus?\b|"
    # "capture-7b, 2 GPUs for 1.5 h:"
    r"(?<![\w.])(?P<w3>\d{1,2})\s*gpus?\s+for\s+(?P<h3>\d+(?:\.\d+)?)\s*(?:h|hrs?|hours?)\b|"
    # "width 4 × 40 h", "eval-7b at width 4 for 3 h"
    r"\bwidth\s*(?P<w4>\d{1,2})\s*(?:[×x*]|\s+for\s)\s*(?P<h4>\d+(?:\.\d+)?)\s*(?:h|hrs?|hours?)\b|"
    # "capture-7b asked at 4x for 1.5 h", "lora-7b 8x for 25 h"
    r"(?<![\w.])(?P<w5>\d{1,2})\s*[x×]\s+for\s+(?P<h5>\d+(?:\.\d+)?)\s*(?:h|hrs?|hours?)\b",
    re.I)

# "every job", "all runs": both length classes, unless a clause narrows it
_EVERY_JOB = re.compile(r"\b(?:every|each|any|all)\s+(?:single\s+)?(?:jobs?|runs?|requests?|"
                        r"dispatch(?:es)?)\b(?!\s+(?:that|which|whose|under|over|below|above|"
                        r"shorter|longer|of|at|on|in|with|for|where|when)\b)", re.I)

# "spot first for everything", "we always try spot first": no job is left out
_FOR_EVERYTHING = re.compile(r"\b(?:always|for\s+(?:everything|every\s+(?:single\s+)?(?:job|run)|"
                             r"all\s+(?:jobs|runs))|no\s+matter\s+what|across\s+the\s+board)\b",
                             re.I)

# a strict "over" ("more than four hours"), not a loose one ("once it passes 4 hours")
_STRICTLY_OVER = re.compile(r"\b(?:(?:more|longer|greater)\s+than|over|above|exceed(?:s|ing)?|"
                            r"in\s+excess\s+of)\s+(?:the\s+)?$", re.I)


# "is 30 h at 8x", "12 hours on 4 GPUs": a job's length at its width. Kept apart
# from _GPUS_TIMES_HOURS on purpose: a product ("8 GPUs × 25 h") always states a
# new job and replaces a carried one, while "12 h at 2x" may only restate the
# carried job at a degraded width, so it sets a job only when none is carried.
_LENGTH_AT_WIDTH = re.compile(r"(?<![\w.])(?P<h>\d{1,4}(?:\.\d+)?)\s*(?:h|hrs?|hours?)\s+"
                              r"(?:at|on)\s+(?P<w>\d{1,2})\s*(?:[x×]|gpus?)(?!\w|\.\d)", re.I)


def job_stated(text: str) -> tuple[float, int] | None:
    """The last job written in `text` as a length at a width or a product."""
    found = [(m.start(), _times_job(m)) for m in _GPUS_TIMES_HOURS.finditer(text)] + \
        [(m.start(), (float(m["h"]), int(m["w"]))) for m in _LENGTH_AT_WIDTH.finditer(text)]
    return max(found)[1] if found else None


def _times_job(m: re.Match[str]) -> tuple[float, int]:
    """(hours, width) of a "8 GPUs × 25 h" match."""
    return (float(m["h"] or m["h2"] or m["h3"] or m["h4"] or m["h5"]),
            int(m["w"] or m["w2"] or m["w3"] or m["w4"] or m["w5"]))


# "… unless the job is long there", "except when it is short": the claim is the other class's
_UNLESS = re.compile(r"\b(?:unless|except\s+(?:when|if|where|for))\b", re.I)
# a §9 phase's own fields: "width 1, gpu_hours 2", "width: 4 · gpu_hours: 6"
_PLAN_WIDTH = re.compile(r"(?<![\w-])width\s*[:=]?\s*(?P<n>\d{1,2})(?![\w.×x])", re.I)
_PLAN_GPU_HOURS = re.compile(r"(?<![\w-])gpu_hours\s*[:=]?\s*(?P<g>\d{1,5}(?:\.\d+)?)(?!\w|\.\d)",
                             re.I)
# a dispatch's flags: "--gpu-count 8 --hours 2", "--gpus=4", "--hours 2.5"
_CLI_GPUS = re.compile(r"(?<![\w-])--(?:gpu[-_]count|gpus|num[-_]gpus|n[-_]gpus|width)(?:\s+|=)"
                       r"(?P<n>\d{1,2})(?!\w|\.\d)", re.I)
_CLI_HOURS = re.compile(r"(?<![\w-])--(?:hours|hrs)(?:\s+|=)(?P<h>\d{1,4}(?:\.\d+)?)(?!\w|\.\d)",
                        re.I)
# "a job that comes out at exactly", "a run which lasts": a length that is a job's
_JOB_LENGTH_BEFORE = re.compile(r"\b(?:jobs?|runs?|requests?|phases?|dispatch(?:es)?)\s+(?:that|"
                                r"which)\s+(?:comes?\s+out\s+(?:at|to)|works?\s+out\s+(?:at|to)|"
                                r"runs?(?:\s+for)?|takes?|lasts?(?:\s+for)?|is|totals?)\s+"
                                r"(?:(?:exactly|just|about)\s+)?$|"
                                # "a job of exactly 168 h"
                                r"\b(?:an?|any|every|each)\s+(?:job|run|request|phase|leg|"
                                r"attempt)\s+of\s+"
                                r"(?:(?:exactly|just|about)\s+)?$|"
                                # "- exactly 168 h → over the limit": a case, not a bound
                                r"^\W*(?:at\s+)?exactly\s+$", re.I)
_STRICTLY_UNDER = re.compile(r"\bstrictly\s+(?:under|below|less\s+than|shorter\s+than)\s+"
                             r"(?:the\s+)?$", re.I)
# "the first rung there is `a2-ultragpu-1g` FLEX_START"
# ("the first rung is still `a2-ultragpu-8g` on SPOT": the machine, then its model)
_FIRST_RUNG_IS = re.compile(r"\b(?:first|top|leading)\s+(?:gcp\s+)?(?:rung|choice|option|stop|"
                            r"model)\s+(?:there\s+|at\s+that\s+width\s+)?(?:is|will\s+be|becomes)"
                            r"\s+(?:still\s+|then\s+|always\s+|now\s+)?[`*_]*"
                            r"(?:[\w-]+[`*_]*\s+(?:on|with|as)\s+)?[`*_]*$", re.I)
_LEAD_WORD = re.compile(r"\blead(?:s|ing)?\b|\bfirst\b", re.I)
# A sentence about the job of the sentence before: "That's right at the line, so it's
# still short", "At that length it leads with SPOT", "There it is long"
_FOLLOW_UP = re.compile(r"\W*(?:(?:and|but|so|then)\s+)?(?:that(?:['’]s|\s+is|\s+makes|\s+puts)|"
                        r"this\s+(?:is|makes)|it(?:['’]s|\s+is|\s+runs|\s+leads|\s+gets|\s+stays)|"
                        r"at\s+that\s+(?:length|width|point)|there\b)", re.I)
# the width a job the sentence before stated ends up at: "if it degrades to 2 GPUs"
_DEGRADES_TO = re.compile(r"(?:\b(?:degrades?|degraded|drops?|dropped|falls?\s+back|fell\s+back|"
                          r"steps?\s+down|stepped\s+down|comes?\s+down|lands?|landed|ends?\s+up|"
                          r"goes\s+down|went\s+down|moves?\s+on|moved\s+on)\s+(?:down\s+)?"
                          r"(?:to|at|on)|\b(?:tries|tried|retries|retried))\s+(?:an?\s+|the\s+)?"
                          r"[`*_]*$", re.I)
_JOB_RUNS = re.compile(r"\b(?:the\s+(?:job|run|phase|request)|it)\s+(?:then\s+|now\s+|would\s+)?"
                       r"(?:runs?|takes?|needs?|lasts?|is)\s+(?:for\s+)?(?:about\s+|roughly\s+)?$",
                       re.I)
_AT_A_WIDTH = re.compile(r"\s+(?:at|on)\s+(?:those\s+|these\s+|the\s+|its\s+)?(?:width\s+)?"
                         r"(?:\d|one|two|four|eight|a\s+single)", re.I)
# a clause about the job at one width: "…, so at width 1 it still counts as short"
_CLAUSE_AT = re.compile(r"(?:^|[,;:—–]\s*(?:(?:so|and|but|then|which\s+means|meaning)\s+)?)"
                        r"(?:at|on)\s+(?:an?\s+|the\s+)?[`*_]*$", re.I)
_ITS_JOB = re.compile(r"[`*_]*\s*,?\s*(?:it|the\s+(?:job|run|phase)|that|this)\b", re.I)
# "The cap is fourteen days" after a sentence about FLEX_START's maximum
_THE_CAP = re.compile(r"^\W*(?:the|that|this|its|their)\s+(?P<cap>cap|limit|maximum|ceiling|"
                      r"max(?:imum)?\s+run(?:\s+duration)?)\s+(?:is|sits\s+at|of)\b", re.I)
_THERE_IS_A_CAP = re.compile(r"\b(?:there\s+(?:is|'s)|is\s+there)\s+(?:a|an|any)\s+(?:[\w-]+\s+)?"
                             r"(?:cap|limit|maximum|ceiling)\b", re.I)
_STILL_GETS = re.compile(r"\b(?:still\s+)?(?:gets?|keeps?|is\s+offered|has)\b(?![^.;]*\bno\b)",
                         re.I)
# (not "if"/"when": "…, and if DWS can't deliver it tries spot VMs next" goes on)
_RESTATED = re.compile(r"\s*(?:,\s*)?(?:i\.\s?e\.,?|that\s+is,?|or|=|\(|—|–)\s*"
                       r"(?:about\s+|roughly\s+)?", re.I)
_LEAD_CONDITION = re.compile(r"\b(?:where|wherever|whenever|as\s+long\s+as)\b", re.I)
_OFFER_WORDS = re.compile(r"\b(?:offered|offers?|available|gets?|keeps?|has|have|no|loses?|lost|"
                          r"drops?|dropped|still|on\s+the\s+menu|in\s+play)\b", re.I)
_CLAUSE_BREAK = re.compile(r"[,;:]|\bso\b")
_MAX_WORD = re.compile(r"max|limit|cap|ceiling|run\s+duration|at\s+most|up\s+to|tops?\s+out|"
                       r"lives?|lasts?|lifetime")
_DENIED_AFTER = re.compile(r"[\s`*_]*(?:(?:is|are|was|were|gets?|will\s+be|would\s+be)\s+)?"
                           r"(?:not|never|no\s+longer)\s+(?:\w+\s+)?(?:offered|available|allowed|"
                           r"used|tried|given|an\s+option)\b|[\s`*_]*(?:isn['’]t|aren['’]t|won['’]t\s+be)"
                           r"\s+(?:offered|available|allowed|used|tried|given)\b", re.I)
_ENDED_AFTER = re.compile(r"\b(?:stopped|terminated|killed|deleted|reclaimed|preempted|ended|"
                          r"shut\s+down)\s+after\s*$", re.I)


_THERE = re.compile(r"[`*_]*\s+(?:(?:leads?|goes|comes|is|are|runs?)\s+)?(?:first\s+)?there\b",
                    re.I)
# a limit a length is compared with: "fits 168 h", "the 168 h flex-start limit"
_FITS_BEFORE = re.compile(r"\b(?:fits?|fitting)\s+(?:in\s+|into\s+|within\s+|under\s+)?"
                          r"(?:the\s+)?$", re.I)
# a length then how it compares with the limit: "192 h, over the cap", "96 h, well
# under the limit"
_AGAINST_THE_CAP = re.compile(r"[\s,;:(—–-]*(?:which\s+is\s+|that(?:['’]s|\s+is)\s+|so\s+)?"
                              r"(?:well\s+|just\s+|comfortably\s+|safely\s+)?"
                              r"(?:over|above|past|beyond|under|below|within|inside|outside|"
                              r"exceed\w*)\s+(?:the|its|that|this|our)\s+(?:[\w-]+\s+)?"
                              r"(?:max\w*|limit|cap|ceiling)\b", re.I)
# (a length restated in brackets names it too: "the 168 h (one week) cap")
_LIMIT_AFTER = re.compile(r"[\s`*_]*\)?[\s`*_]*(?:\([^)]*\)\s*)?(?:flex[\w-]*\s+)?"
                          r"(?:limit|max(?:imum)?|cap|ceiling|threshold|cut-?off)\b", re.I)
# between a worked job and its class word: "4 h at 4×, which is long", "four hours
# — that's long", "6 h at 1× and is long"
# "short at 4× but not at 2×": a class, its width, and the width it is denied at
_AT_WIDTH_GAP = re.compile(r"[\s*_`]+(?:at|on)\s+(?:the\s+)?", re.I)
_ELIDED_NOT = re.compile(r"[\s*_`]*,?\s*(?:(?:but|and|yet)\s+)?(?:not|never)\s+(?:at|on)\s+"
                         r"(?:the\s+)?", re.I)
_OWN_CLASS = re.compile(r"[\s,;:—–()-]*(?:(?:which|that|so\s+it|and\s+it|and|it|this)\s*"
                        r"(?:'s|’s|is|are|counts?\s+as|makes?\s+it|becomes?)?)?\s*"
                        r"(?:still\s+|now\s+|then\s+|already\s+|therefore\s+)?", re.I)

# "… get no", "… never gets a", "… don't see any": the model right after is denied
# to the subject (not "If not, there is no …", a condition's own denial)
_GETS_NO = re.compile(r"^[^?;]*?\b(?:(?:gets?|has|have|receives?|sees?)\s+no|(?:never|don['’]t|"
                      r"doesn['’]t|do\s+not|does\s+not|cannot|can['’]t)\s+(?:get|have|use|"
                      r"receive|see)(?:\s+(?:an?|any|the))?)\s+(?:[\w-]+\s+)?$", re.I)


# a clause that draws a conclusion from the one before: ", so the 8-GPU width is short"
_SO_CLAUSE = re.compile(r"[,;]\s*(?:and\s+)?(?:so|hence|therefore|which\s+means)\b", re.I)


# "… and the router still leads that width with flex-start"
_LEADS_THAT_WIDTH = re.compile(r"\blead(?:s|ing)?\s+(?:that|this|the|each|every)\s+width\s+"
                               r"with\s+[`*_]*$", re.I)

# between a model and the length it is not offered past: "flex-start past 168 h"
_MODEL_PAST = re.compile(r"[`*_]*\s*(?:rungs?\s+)?(?:(?:is|are)\s+)?"
                         r"(?:(?:offered|allowed|available|tried)\s+)?"
                         rf"(?:for\s+(?:runs?|jobs?|lengths?)\s+)?{PAST}\s+", re.I)

# widths joined on to the one a fact is stated at: "at width 2 and also at width 1"
_ALSO_AT = re.compile(r"[`*_]*\s*,?\s*(?:and|or|as\s+well\s+as)\s+(?:also\s+|even\s+)?(?:at|on)\s+"
                      r"(?:width\s+)?[`*_]*", re.I)

# between a derived fact and the width it is stated for: "long at 1x", "leads there
# on 2x", "becomes a 2 h job at 4× and an 8 h job at 1×"
_STATED_AT = re.compile(r"[`*_]*(?:[\s-]+(?:long\s+)?(?:job|run|phase|one|task)s?)?"
                        r"\s+(?:(?:leads?|goes\s+first|comes\s+first|is\s+first|"
                        r"first)\s+)?(?:there\s+)?(?:at|on)\s+(?:the\s+)?", re.I)


class LengthReading(ReaderBase):
    # -- length classes, thresholds, leads ---------------------------------------------------------

    def length_class(self, near: int) -> str | None:
        """'short' or 'long' when the sentence is about a length class."""
        classes = [t for t in self.tokens if t.kind in ("short", "long")]
        if not classes:
            return None
        # "…flex-start first, then on-demand, …, whereas a short job …": a class
        # across a contrast is the other clause's
        classes = [t for t in classes if not _CONTRAST_JOINT.search(
            self.unit_text, min(t.end, near), max(t.start, near))
            and self.aside_of(t.start) in (None, self.aside_of(near))]
        scored = sorted(classes, key=lambda t: abs(t.start - near))
        for t in scored:
            tail = self.unit_text[t.end:t.end + 25].lstrip("\"”'*_`")
            if CLASS_WORDS.match(tail.strip(" \n\t-*`")) or re.match(r"\s*[:(|]", tail) or \
                    re.search(r"\b(?:calls?|deems?|labels?|marks?)\s+(?:a|the|any|every|that)\s+"
                              r"(?:job|run|phase|request)\s+$",
                              self.unit_text[max(0, t.start - 30):t.start], re.I) or \
                    re.search(r"\b(?:is|are|counts?\s+as|as|considered|classed\s+as|be|means?|"
                              r"stays?|remains?|becomes?|turns?)(?:\s+(?:still|also|always|already|now|then|"
                              r"treated\s+as))?\s*$",
                              self.unit_text[max(0, t.start - 25):t.start], re.I) or \
                    re.match(r"\s*(?:here\s+|now\s+)?(?:=|means|:)", tail) or \
                    re.match(r"\s*(?:-job\s+)?(?:order|ordering|sequence|chain)\b", tail, re.I) or \
                    (re.search(r"\|\s*$", self.unit_text[max(0, t.start - 4):t.start]) and
                     re.match(r"\s*(?:\||$)", tail)):  # a table cell that is just the class
                return t.kind
        return None

    def read_lengths(self) -> None:
        stated = _GPUS_TIMES_HOURS.search(self.s.text)
        if self.carried and stated:
            # "Likewise 8 GPUs × 25 h is 200 h at width 1, so …": a job of its own,
            # not the one the sentence before worked through
            job = _times_job(stated)
            self.carried = job if job[1] in self.facts.widths else None
        self._read_lengths()
        times = stated if self.request is None else None
        plan = _PLAN_WIDTH.search(self.s.text) if times is None and self.request is None \
            else None
        gpu_hours = _PLAN_GPU_HOURS.search(self.s.text) if plan else None
        if plan and gpu_hours and int(plan["n"]) in self.facts.widths:
            # "eval-7b, width 1, gpu_hours 2": a phase of the plan, its length at its width
            self.request = (float(gpu_hours["g"]) / int(plan["n"]), int(plan["n"]))
        if times is None and self.request is None and "--" in self.s.text:
            gpus, hours = _CLI_GPUS.search(self.s.text), _CLI_HOURS.search(self.s.text)
            if gpus and hours and int(gpus["n"]) in self.facts.widths:
                # "`--intent capture-7b --gpu-count 8 --hours 2`:": the dispatch the
                # items under it (or the next sentence) work through
                self.request = (float(hours["h"]), int(gpus["n"]))
        if times:
            # "8 GPUs × 25 h = 200 GPU-hours.": the job the next sentence goes on about
            hours, width = _times_job(times)
            if width in self.facts.widths:
                self.request = (hours, width)
        if self.request is None and self.carried is None:
            bare = _LENGTH_AT_WIDTH.search(self.s.text)
            if bare and int(bare["w"]) in self.facts.widths:
                # "My fine-tune is 30 h at 8x.": a job stated and nothing claimed yet;
                # the next sentence (or a question's answer) goes on about it
                self.request = (float(bare["h"]), int(bare["w"]))

    def _read_lengths(self) -> None:
        if not (LENGTH_TOPIC.search(self.s.text) or LENGTH_TOPIC.search(self.heading)):
            return
        models = [t for t in self.terms if t.term[0] in ("model", "rung")]
        durations = self.kinds("duration")
        if _FLEX_LIMIT.search(self.unit_text) and self.facts.flex_model and any(
                t.term == ("model", self.facts.flex_model) for t in self.terms):
            # "longer jobs get no FLEX_START rung", "… at a wider width where it is
            # shorter": beside FLEX_START's limit a comparative measures against it
            self.tokens = [t for t in self.tokens if t.kind not in ("short", "long") or
                           not re.match(r"(?:short|long)er\b", self.unit_text[t.start:t.end],
                                        re.I)]
        classes = [t for t in self.tokens if t.kind in ("short", "long")]
        if self.carried and durations and (any(
                self._sent_to(t) for t in self.terms if t.term[0] == "width") or
                self._runs_there(durations)) and \
                self._carried_example(classes, durations):
            # "GCP had nothing at 4x, so the router dropped to 2x, where the job runs
            # 12 h": the job of the sentence before, where it went
            return
        if durations and self._worked_example(durations, models, classes):
            return
        if self.carried and models and self._carried_lead(models):
            return
        if self.carried and models and not durations and (
                not classes or _PRONOUN_STAYS.search(self.s.text)) and \
                self._carried_width_lead(models):
            # ("since it started life as a short job it stays short and the 4x rungs
            # still lead with SPOT": the job's class there is what the lead says)
            return
        if self.carried and (classes or durations or (models and _FOLLOW_UP.match(self.s.text))) \
                and self._carried_example(classes, durations):
            if models and not any(p.args[3] == "lead" for p in self.props
                                  if p.kind == "consequence") and \
                    not self._carried_width_lead(models):
                # "At 1 GPU that is 200 h, and the 1× rungs still include flex-start"
                self._carried_offer(models)
            return
        if self.carried and models and self._carried_offer(models):
            return
        if classes:
            self._read_threshold(classes, durations)
            gh = re.search(r"\d+(?:\.\d+)?\s*gpu[- ]?h(?:ours?|rs?)?\b", self.s.text, re.I)
            unit = re.search(r"\b(?:measured|counted|decided|judged|computed)\s+in\s+"
                             r"gpu[- ]?hours?\b", self.s.text, re.I)
            if unit:  # "'Short' is measured in GPU-hours"
                at = self.s.start + unit.start()
                self.add("threshold-unit", ("GPU-hours",), at, self.s.start + unit.end(),
                         self.negated_before(at), topic="length threshold")
            elif gh and not [d for d in durations if not (
                    self.s.start + gh.start() <= d.start < self.s.start + gh.end())] and (
                    self.length_class(self.s.start + gh.start()) or re.search(
                        r"\b(?:cut-?off|threshold|boundary|line)\b", self.s.text, re.I)):
                # "The short/long cutoff is 4 GPU-hours": a job's length, not its GPU-hours
                at = self.s.start + gh.start()
                self.add("threshold-unit", ("GPU-hours",), at, at + len(gh.group(0)),
                         self.negated_before(at), topic="length threshold")
        if not models:
            return
        # Both classes, one claim: "Preemptible capacity is tried first regardless of
        # job length", "tried first for every job, short or long".
        every_length = (ANY_LENGTH.search(self.s.text) or (
            not durations and not self.procedural and (
                self._every_job_subject() or _FOR_EVERYTHING.search(self.s.text)))
        ) if not classes else (
            len(classes) == 2 and not durations and _BOTH_CLASSES.search(self.s.text))
        if every_length and self.s.context and (
                self.kinds("first") or self.kinds("last") or STRONG_THEN.search(self.s.text)):
            # (an order's words: "offers spot and flex-start only, …, whatever the
            # job's length" allows models, it orders none)
            for kind in ("short", "long"):
                self._read_lead(kind, models, self.s.start, self.s.end)
            return
        every_job = _EVERY_JOB.search(self.s.text) if classes and self.s.context else None
        if every_job:
            # "Every job still leads with SPOT; long ones just try FLEX before
            # STANDARD": a clause about every job names both classes' lead
            lo = self.clause_start(self.s.start + every_job.start())
            hi = self.clause_end(self.s.start + every_job.end())
            mine = [t for t in models if lo <= t.start < hi]
            if mine and not any(lo <= c.start < hi for c in classes) and any(
                    lo <= t.start < hi for t in self.kinds("first")):
                for kind in ("short", "long"):
                    self._read_lead(kind, mine, lo, hi)
                models = [t for t in models if t not in mine]
        if not classes and not durations:
            kind = heading_class(self.heading)
            if kind:
                # "### Long jobs" over "FLEX_START → SPOT → STANDARD.": the heading
                # names the class its section is about, and a chain of models under
                # it is that class's order
                if len(models) > 1 and STRONG_THEN.search(self.s.text):
                    self.s.context = True
                self._read_lead(kind, models, self.s.start, self.s.end)
                return
        segments = self._class_segments(classes)
        for kind, seg_start, seg_end, _ in segments:
            seg_models = [t for t in models if seg_start <= t.start < seg_end]
            if not seg_models or kind is None:
                continue
            self._read_lead(kind, seg_models, seg_start, seg_end)
        if not classes and durations:
            self._read_lead_at(durations, models)

    def _every_job_subject(self) -> bool:
        """'Every job (still) leads with SPOT': every job is the clause's subject."""
        m = _EVERY_JOB.search(self.s.text)
        return m is not None and not self.text(
            self.clause_start(self.s.start + m.start()), self.s.start + m.start()).strip(
            " \n\t*_`>-").lower().removeprefix("so").removeprefix("and").strip(" ,")

    def _class_segments(self, classes: list[Token]):
        """Each class word owns the text up to the next class word; a model
        before the first class word ('SPOT leads short jobs') belongs to it."""
        classes = [c for c in classes if (self.length_class(c.start) == c.kind or
                   CLASS_WORDS.match(self.unit_text[c.end:c.end + 20].strip(" \n\t-*`"))) and
                   self.aside_of(c.start) is None]  # "(exactly 4 h is long)" qualifies
        if not classes:
            return []
        out = []
        for i, c in enumerate(classes):
            start = self.s.start if i == 0 else c.start
            if i == 0 and ":" in self.text(self.s.start, c.start):
                # "The lead is decided per width, not once per job: a job can be short
                # at 8× …": the clause before the colon has its own polarity
                start = self.s.start + self.text(self.s.start, c.start).rindex(":") + 1
            if i == 0:
                # "… a 4.0-hour estimate leads with flex-start there, while 3.9 hours is
                # short and leads with spot": the clause before the contrast is not
                # the class's
                contrast = list(re.finditer(r";|,?\s\b(?:while|whereas)\b|,\s*(?:but|so)\b",
                                            self.text(start, c.start)))
                if contrast and contrast[-1].group(0).rstrip().endswith("so") and any(
                        t.kind == "duration" and start <= t.start < start + contrast[-1].start()
                        for t in self.tokens):
                    contrast = []  # "DWS has a 3-day limit, so multi-day jobs …": one thought
                if contrast:
                    start += contrast[-1].start()
            if i:
                joint = list(re.finditer(r"[,;]|\band\b|\bwhile\b|\bwhereas\b|\bbut\b",
                                         self.text(classes[i - 1].end, c.start)))
                if joint:
                    start = classes[i - 1].end + joint[-1].start()
                # the class before ends where this one's text begins
                out[-1] = (out[-1][0], out[-1][1], start, out[-1][3])
            kind = c.kind
            if _UNLESS.search(self.text(start, c.start)) and not any(
                    t.kind in ("short", "long") and start <= t.start < c.start
                    for t in self.tokens):
                # "SPOT goes first unless the job is long there": the other class's claim
                kind = "short" if kind == "long" else "long"
            out.append((kind, start, self.s.end, c))
        # ("…, so at width 2 it leads with FLEX_START" ends the class's text)
        out = [(k, a, (j.start() if (j := _JOB_CLAUSE.search(self.unit_text, c.end, b)) else b),
                c) for k, a, b, c in out]
        # "…becomes long past 4 h; anything shorter leads with SPOT": the other class
        other = _OTHER_CLASS.search(self.s.text)
        if out and other:
            at = self.s.start + other.start()
            kind = "short" if other.group(1).lower() == "shorter" else "long"
            out = [(k, a, min(b, at), c) for k, a, b, c in out if a < at]
            out.append((kind, at, self.s.end, out[-1][3] if out else None))
        return out

    def _read_lead(self, kind: str, models: list[TermTok], start: int, end: int) -> None:
        cond = _LEAD_CONDITION.search(self.text(models[0].end, end))
        if cond:
            # "…, not spot VMs, at any width where flex-start is offered": the
            # condition's models are not the lead's
            cut = models[0].end + cond.start()
            models = [m for m in models if m.start < cut]
            end = cut
        colon = next((i for i, (a, b) in enumerate(itertools.pairwise(models))
                      if ":" in self.text(a.end, b.start)), None)
        if colon is not None and self.negated_before(models[0].end, since=start):
            # "A long job never touches spot VMs: it goes FLEX_START, then STANDARD": the
            # colon ends the denied model's claim; what follows is read as its own
            models = models[:colon + 1]
            end = models[-1].end
        seg = self.text(start, end)
        names = [t.term[1] if t.term[0] == "model" else t.term[1][2] for t in models]
        names = [n for n in names if n]
        if not names:
            return
        firsts = [t for t in self.tokens if t.kind == "first" and start <= t.start < end]
        lasts = [t for t in self.tokens if t.kind == "last" and start <= t.start < end]
        if self.lead_defined and not firsts and not lasts and not STRONG_THEN.search(seg):
            firsts = [models[0]]  # the definition's "tried first" is this fragment's cue
        # "SPOT comes after STANDARD, and FLEX_START comes ahead of both" orders
        # pairs (read_before_after's), not a list in the order written
        cued = any(t.kind in ("before", "after") and start <= t.start < end
                   for t in self.tokens) and not STRONG_THEN.search(seg)
        has_chain = len(names) > 1 and not cued and bool(STRONG_THEN.search(seg) or
                                                         re.search(r"[,|]", seg))
        # a negation after the last model ("… so they don't get preempted") is not
        # about the lead
        negated = self.negated_before(models[-1].end, since=start)
        if not self.s.context and not firsts and not lasts and not (
                has_chain and STRONG_THEN.search(seg)):
            # "| Multi-day training | Spot |" in a cost guide is advice, not our ladder;
            # "long jobs start on on-demand, then flex-start, then spot" is its order
            return
        if has_chain and not firsts and not lasts:
            self.add("class-order", (kind, tuple(dict.fromkeys(names))), models[0].start,
                     models[-1].end, negated, topic="length-aware lead")
            return
        if has_chain and firsts and STRONG_THEN.search(seg):
            self.add("class-order", (kind, tuple(dict.fromkeys(names))), models[0].start,
                     models[-1].end, negated, topic="length-aware lead")
            return
        if lasts:
            cue = lasts[0]
            # "Long jobs do not lead with SPOT: SPOT is their last resort": the
            # cue's own clause carries its polarity
            negated = self.negated_before(cue.start, since=max(start, self.clause_start(
                cue.start)))
            before = [t for t in models if t.end <= cue.start and
                      not re.search(r"[,;]", self.text(t.end, cue.start))]
            # "spot VMs come last, after flex-start": the model the cue follows
            # ("Spot stays, though: it is the last choice, after flex-start": what
            # comes after "after" is what precedes the last one, never the last one)
            candidates = [t for t in models if not (t.start > cue.start and re.search(
                r"\b(?:after|behind|following)\b", self.text(cue.end, t.start), re.I))]
            model = before[-1] if before else min(candidates or models,
                                                  key=lambda t: abs(t.start - cue.start))
            name = model.term[1] if model.term[0] == "model" else model.term[1][2]
            self.add("class-last", (kind, name), model.start, model.end, negated,
                     topic="length-aware lead", fix=((model.start, model.end, ""),))
            return
        model = models[0]
        name = model.term[1] if model.term[0] == "model" else model.term[1][2]
        if len(models) > 1 and re.match(r"[\s()\w-]*,\s*(?:and\s+|but\s+)?(?:not|never)\b",
                                        self.text(model.end, models[1].start + 1), re.I):
            # "leads with flex-start (DWS), not spot VMs": the negation is the other's
            negated = self.negated_before(model.end, since=start)
        cls_end = max((t.end for t in self.tokens if t.kind in ("short", "long") and
                       start <= t.start < model.start), default=start)
        keyed_group = not firsts and re.match(r"[`*_]*\s*:", self.unit_text[model.end:]) and \
            any(t.term[0] in ("family", "rung") and t.start > model.end for t in self.terms)
        if keyed_group:
            # "short job (1.5 h): FLEX_START: a2-ultragpu-8g → a3-highgpu-8g", a tree's
            # branch: the model keys a group of families, it is not the class's value
            return
        if firsts or re.search(r"[:=→]|\|", self.text(cls_end, model.start)):
            self.add("lead", (kind, name), model.start, model.end, negated,
                     topic="length-aware lead", fix=((model.start, model.end, ""),))
        elif re.search(r"\b(?:use|uses|used|get|gets|take|takes|try|tries|tried|land|lands|"
                       r"run|runs|go|goes|see|sees|offered|allowed|eligible|touch(?:es)?|"
                       r"reach(?:es)?|hits?|picks?|ends?\s+up\s+on|fall(?:s|ing)?\s+back\s+to|"
                       r"falls?\s+through\s+to|drops?\s+(?:down\s+)?to|skips?|avoids?|"
                       r"excludes?|leaves?\s+out)\b", seg, re.I):
            # "long jobs never try SPOT": which models a length class is offered
            self.add("class-offers", (kind, name), model.start, model.end, negated,
                     topic="length-aware lead")

    def _read_threshold(self, classes: list[Token], durations: list[Token]) -> None:
        cuts = list(re.finditer(r"\b(?:threshold|cut-?off|boundary|split|line|dividing)\b|"
                                # a setting's key: "short below hours: 6", "short max: 4 h"
                                r"\b(?<=short\s)(?:below|under|max(?:imum)?|limit|upper)\b"
                                r"(?=[\w\s]{0,12}[:=])", self.s.text, re.I))
        # the cut word nearest before the first length names it ("…, and today the
        # threshold sits at five hours")
        first = durations[0].start - self.s.start if durations else len(self.s.text)
        before = [c for c in cuts if c.start() < first]
        cut_word = before[-1] if before else (cuts[0] if cuts else None)
        classes = [c for c in classes if cut_word or self.length_class(c.start) == c.kind]
        if not classes:
            return
        if not cut_word and self.facts.flex_model and re.search(
                r"\b(?:cap|limit|max(?:imum)?|ceiling|run\s+duration)\b",
                self.unit_text[self.s.start:self.s.end + 40], re.I) and \
                any(t.term == ("model", self.facts.flex_model) for t in self.terms):
            return  # "…exceeds a week; that is the 168 h cap": FLEX_START's maximum, no class
        if not cut_word and self.facts.flex_model and any(
                t.term == ("model", self.facts.flex_model) and _LOSES_FLEX.search(
                    self.unit_text[max(self.s.start, t.start - 25):t.start])
                for t in self.terms):
            return  # "a long job over 168 h at a width loses its FLEX_START rungs": the cap
        # "Only jobs under 1 h are short", "…; everything else is long": the subset
        # is the whole class, so the sentence defines the threshold
        exclusive = bool(re.search(r"\bonly\b|\b(?:everything|anything)\s+(?:else|longer|"
                                   r"over|above|past)\b|\botherwise\b|\bthe\s+rest\b|"
                                   r"\bmeans\b|\bdefined\s+as\b", self.s.text, re.I))
        at_word = self.s.start + cut_word.start() if cut_word else 0
        nearest_to_word = min(durations, key=lambda x: abs(at_word - x.start)) \
            if cut_word and durations else None
        for d in durations:
            cmp = self._comparator(d)
            # The class in the duration's own clause: "a 239-minute job is short, a
            # 240-minute job is long"; a table row never pairs across cells.
            cls = self._class_of(d, classes)
            if _CONTRAST_JOINT.search(self.unit_text, min(cls.end, d.end),
                                      max(cls.start, d.start)):
                continue  # "… seven hours of work, whereas a short job …": another clause
            if abs(cls.start - d.start) > 60 or any(
                    other is not d and self._class_of(other, classes) is cls and
                    (self._apart(other, cls), d.start) < (self._apart(d, cls), other.start)
                    for other in durations):
                continue  # "| 8x, 1 h | long | 4 h |": the class belongs to the nearer 4 h
            word = cut_word
            near_word = d is nearest_to_word and ((
                abs(at_word - d.start) <= 24 and
                not re.search(r"[,;:]", re.sub(r"^[\w-]+\s*[:=]\s*$", "", self.text(
                    *sorted((at_word, d.start))))))  # "threshold: 4 h" is one clause
                or (at_word < d.start and _CHANGED_TO.fullmatch(  # "… cutoff was raised
                    self.text(at_word, d.start)) is not None)  # from four hours to twelve"
                or (at_word < d.start and re.fullmatch(  # "the cut-off between … is 3 h"
                    r"[\w-]*\s+(?:between|for|of)\s+[^,;:.]{0,45}?\s(?:is|are|sits\s+at|"
                    r"lies\s+at|falls\s+at)\s+(?:at\s+|about\s+|roughly\s+)?",
                    self.text(at_word, d.start), re.I) is not None))
            beside = _BESIDE_THRESHOLD.match(self.unit_text, d.end)
            if beside and cut_word and self.s.start + cut_word.start() >= d.end:
                # "Since 5 h is over the short threshold, …": a job compared with the
                # threshold, not the threshold
                self.add("subset", ("at", d.value, "short" if beside["cmp"].lower() in (
                    "under", "below") else "long"), d.start, d.end,
                    self.negated_before(d.end + beside.end()), topic="length threshold")
                continue
            defining = near_word or ((cls.start < d.start or exclusive) and not word)
            negated = self.negated_before(max(d.start, cls.start))
            fix = (self._fix_span(d),)
            if _CHANGED_TO.search(self.text(max(self.s.start, d.start - 60), d.start)):
                fix = ()  # "raised from four hours to twelve": "…to 4 h" mends nothing
            if cmp is None:
                if near_word:
                    self.add("threshold", (d.value,), d.start, d.end, negated,
                             topic="length threshold", fix=fix)
                elif cls.start > d.start and not (_SO_CLAUSE.search(self.text(d.end, cls.start))
                                                  and any(t.term[0] == "width" and
                                                          d.end <= t.start < cls.start
                                                          for t in self.terms)):
                    # "a job of exactly 4 h counts as short" (not "lengths are 2 h, 4 h
                    # and 8 h, so only the 8-GPU width is short": that width's class)
                    self.add("subset", ("at", d.value, cls.kind), d.start, d.end, negated,
                             topic="length threshold")
                continue
            relation, inclusive = cmp
            if defining:
                value = d.value
                if inclusive and relation == "under":  # "4 h or less count as short"
                    self.add("subset", ("at", value, "short" if cls.kind == "short" else "long"),
                             d.start, d.end, negated, topic="length threshold")
                    if exclusive and cls.kind == "short" and not negated:
                        # "'Short' means two hours or less": the cut sits just above 2 h
                        self.add("threshold", (value,), d.start, d.end,
                                 topic="length threshold", fix=fix)
                    continue
                if not inclusive and relation == "over" and cls.kind == "long" and \
                        _STRICTLY_OVER.search(self.unit_text[max(self.s.start, d.start - 20):
                                                             d.start]):
                    # "Long means more than four hours": a job of exactly 4 h is short
                    # (and the cut sits at 4 h, as "long: over 4 h" in a list also says)
                    self.add("subset", ("at", value, "short"), d.start, d.end, negated,
                             topic="length threshold")
                    self.add("threshold", (value,), d.start, d.end, negated,
                             topic="length threshold", fix=fix)
                    continue
                if (relation == "under") == (cls.kind == "short"):
                    self.add("threshold", (value,), d.start, d.end, negated,
                             topic="length threshold", fix=fix)
            else:
                if inclusive and relation == "under":
                    relation, value = "under", d.value + 1e-9
                    self.add("subset", (relation, value, cls.kind), d.start, d.end, negated,
                             topic="length threshold")
                    continue
                self.add("subset", (relation, d.value, cls.kind), d.start, d.end, negated,
                         topic="length threshold")

    def _apart(self, a: Token, b: Token) -> int:
        return max(a.start, b.start) - min(a.end, b.end)

    def _class_of(self, d: Token, classes: list[Token]) -> Token:
        """The class word a duration is stated with: the nearest one in its own
        clause ("a 239-minute job is short, a 240-minute job is long"), else the
        nearest one."""
        own = [c for c in classes if not re.search(
            r"[,;:]", self.text(min(c.end, d.end), max(c.start, d.start)))]
        return min(own or classes, key=lambda c: self._apart(c, d))

    def _fix_span(self, d: Token) -> tuple[int, int, str]:
        """Where a length is mended, and in which unit: "short_threshold_hours = 12"
        and "flex max: 72" mend the number alone."""
        text = self.unit_text[d.start:d.end]
        key = re.search(r"[:=]\s*(\d+(?:\.\d+)?)\s*$", text)
        if key:
            return d.start + key.start(1), d.start + key.end(1), "number"
        return d.start, d.end, self._unit_of(d)

    def _unit_of(self, d: Token) -> str:
        text = self.unit_text[d.start:d.end].lower()
        if re.fullmatch(r"\S+\s*-\s*day", text):
            return "day-adjective"  # "a 3-day limit"
        if re.search(r"week|\bwk", text):
            return "weeks"  # "(two weeks)" is mended as "(1 week)"
        return "days" if re.search(r"day|\bd\b", text) else "h"

    def _comparator(self, d: Token) -> tuple[str, bool] | None:
        if self.unit_text[d.start:d.start + 3].lower() == "sub":
            return "under", False  # "sub-hour"
        reach = 12
        if re.search(r"\(\s*$", self.unit_text[max(0, d.start - 3):d.start]):
            reach = 40  # "shorter than a working day (8 h)": the bracket restates it
        # another length or a clause break between makes the cue that one's ("below
        # 4 h, so four hours on the nose is long")
        before = [t for t in self.tokens if t.kind in ("under", "over", "after") and
                  t.end <= d.start and d.start - t.end <= reach and
                  not re.search(r"[,;:]", self.unit_text[t.end:d.start]) and
                  not any(o.kind == "duration" and t.end <= o.start and o.end <= d.start
                          for o in self.tokens if o is not d)]
        after = [t for t in self.tokens if t.kind in ("under", "over") and
                 t.start >= d.end and t.start - d.end <= 4 and
                 re.match(r"or\s|and\s+(?:up|over|above|less|under)|\+",
                          self.unit_text[t.start:t.end + 8].lower())]
        if before:
            word = self.unit_text[before[-1].start:before[-1].end].lower()
            inclusive = word in ("at most", "up to", "<=", "≤", "no more than", "no longer than",
                                 "within", "at least", ">=", "≥") or word.startswith("up to") \
                or bool(re.search(r"\bat\s+or\s+$", self.unit_text[max(0, before[-1].start - 8):
                                                                  before[-1].start], re.I)) \
                or bool(re.match(r"\s+or\s+(?:equal\s+to|at)\b",
                                 self.unit_text[before[-1].end:d.start], re.I))
            return ("over" if before[-1].kind == "after" else before[-1].kind), inclusive
        if after:
            word = self.unit_text[after[0].start:after[0].end].lower()
            # "4 h or less" / "4 h or more"
            return ("under" if "less" in word or "shorter" in word else after[0].kind), True
        tail = self.unit_text[d.end:d.end + 12].lower()
        if re.match(r"\s*or\s+(?:less|under|shorter|fewer)", tail):
            return "under", True
        if re.match(r"\s*or\s+(?:more|longer|over)|\s*\+", tail):
            return "over", True
        # "Why 4 h matters: below that threshold the job is short": the cue names the
        # length by pointing back at it
        back = re.search(r"\b(?P<cue>below|under|less\s+than|shorter\s+than|above|over|past|"
                         r"longer\s+than)\s+(?:that|this)\s+(?:threshold|cut-?off|line|mark|"
                         r"value|number)\b", self.unit_text[d.end:min(self.s.end, d.end + 60)],
                         re.I)
        if back and re.search(r"[:;—–]", self.unit_text[d.end:d.end + back.start() + 1]):
            word = back["cue"].lower()
            return ("under" if word in ("below", "under") or word.startswith(("less", "short"))
                    else "over"), False
        return None

    def _read_lead_at(self, durations: list[Token], models: list[TermTok]) -> None:
        firsts = self.kinds("first")
        if not firsts:
            return
        for d in durations:
            cmp = self._comparator(d)
            relation = cmp[0] if cmp else "of"
            # "FLEX_START first, with SPOT as the last option": the model right before
            # "first" is the one that leads, else the next one after it
            model = next((m for m in models if m.end <= firsts[0].start and not self.text(
                m.end, firsts[0].start).strip(" \n\t*_`")), None) or next(
                (m for m in models if m.start > firsts[0].start), models[0])
            name = model.term[1] if model.term[0] == "model" else model.term[1][2]
            if name:
                # "SPOT is never first for a 6 h job": a negation between the model
                # and the cue after it denies the lead as one before the model does
                negated = self.negated_before(max(model.start, firsts[0].start))
                self.add("lead-at", (relation, d.value, name), model.start, model.end,
                         negated, topic="length-aware lead")
                if cmp and cmp[1] and relation != "of":
                    # "4 h or less lead with SPOT" also says what a 4 h job leads with
                    self.add("lead-at", ("of", d.value, name), model.start, model.end,
                             negated, topic="length-aware lead")
            return

    _next_job: tuple[list[Token], list[TermTok], list[Token]] | None = None
    _whole_sentence = False

    def _worked_example(self, durations: list[Token], models: list[TermTok],
                        classes: list[Token]) -> bool:
        """'a 3 h job at 8× that degrades to 2× still counts as short', and each
        further job the sentence works through ('… and a 4.0 h job leads with
        FLEX_START')."""
        before = len(self.props)
        read = self._one_worked_example(durations, models, classes)
        if self._next_job is not None:
            job, self._next_job = self._next_job, None
            if not self._one_worked_example(*job):
                # a second length the reader cannot place as a job of its own: the
                # sentence is about the first job after all
                del self.props[before:]
                self._whole_sentence = True
                read = self._one_worked_example(durations, models, classes)
                self._whole_sentence = False
            else:
                read = True
        self._next_job = None
        return read

    def _one_worked_example(self, durations: list[Token], models: list[TermTok],
                            classes: list[Token]) -> bool:
        widths = [t for t in self.terms if t.term[0] in ("width", "family", "rung") and
                  self._term_width(t) is not None]
        # "Half a day on 8 GPUs becomes 96 h on one GPU", "18 h at 8× degraded to 1×":
        # a length written at a width is a job, outside a table row
        at_width = "|" not in self.s.text and (any(
            re.fullmatch(r"\s+(?:(?:requested|asked\s+for|dispatched|submitted)\s+)?"
                         r"(?:at|on|across)\s+(?:an?\s+)?", self.text(d.end, w.start), re.I)
            for d in durations[:1] for w in widths if w.start > d.end) or any(
            # "8x for 3 h degraded to 2x is 12 h": the width, then the length it runs for
            re.fullmatch(r"[`*_]*\s+(?:(?:requested|asked|run(?:ning)?|dispatched)\s+)?for\s+|"
                         # the dispatch flags: "--gpu-count 8 --hours 10"
                         r"\s+--", self.text(w.end, d.start), re.I)
            for d in durations[:1] for w in widths if w.end <= d.start))
        if not widths or not (at_width or re.search(
                r"\b(?:jobs?|runs?|phases?|requests?|dispatch(?:es)?|work(?:loads?)?|tasks?|"
                r"evals?|trainings?|sweeps?)\b", self.s.text, re.I)):
            return False
        # the job's length shares a clause with a width: "A full week is allowed:
        # … eight GPUs for twenty-one hours, which comes to 168 hours at one GPU"
        # is a 21 h job, the week before the colon a limit
        d = next((d for d in durations if any(
            not re.search(r"[:;]", self.text(min(d.end, w.end), max(d.start, w.start)))
            for w in widths)), durations[0])
        durations = durations[durations.index(d):]
        # "a 3.9 h job leads with SPOT and a 4.0 h job leads with FLEX_START": a
        # second job in the sentence owns what is said after it
        # ("… is a 4 h job on one GPU" restates the same job at another width)
        second = next((o for o in durations[1:] if _ANOTHER_JOB.match(self.unit_text, o.end)
                       and _ANOTHER_ARTICLE.search(self.unit_text, max(0, o.start - 30), o.start)),
                      None)
        if second is not None and not self._whole_sentence:
            self._next_job = (durations[durations.index(second):],
                              [m for m in models if m.start > second.start],
                              [c for c in classes if c.start > second.start])
            models = [m for m in models if m.start < second.start]
            classes = [c for c in classes if c.start < second.start]
            widths = [w for w in widths if w.start < second.start]
        if self._comparator(d) is not None and not re.search(r"\bjob\b", self.s.text, re.I):
            return False
        if _A_BOUND.search(self.unit_text[max(self.s.start, d.start - 30):d.start]):
            return False  # "a job that fits in a week at 8×": the week is a bound, not a length
        request = self._request_width(d, widths)
        if request is None:
            return False
        width0 = self._term_width(request)
        assert width0 is not None
        self.request = (d.value, width0)

        def at_width(start: int, end: int) -> int:
            """The width a derived fact is stated for: one right after it ("long at
            1x"), else the last one named before it other than the request ("at 2x
            it runs 8 h and at 1x 16 h"), else the request's own."""
            if _THERE.match(self.unit_text, end):
                # "…4 h at 4×, which is long, so FLEX_START leads there": the width
                # named last before it, the request's own included
                before = [w for w in widths if w.start < start]
                if before:
                    return self._term_width(before[-1])  # type: ignore[return-value]
            nxt = next((w for w in widths if w.start >= end), None)
            if nxt is not None and nxt is not request and \
                    _STATED_AT.fullmatch(self.text(end, nxt.start)):
                return self._term_width(nxt)  # type: ignore[return-value]
            named = [w for w in widths if w is not request and w.start < start]
            if not named:
                # "…is long once it drops to 2x": a width later in the same clause
                # ("…, while at width 8 it is …" starts another clause)
                named = [w for w in widths if w is not request and w.start >= end and
                         not re.search(r"[;]|,\s+(?:while|whereas|but|and\s+at)\b|\.\s",
                                       self.text(end, w.start))][:1]
            return self._term_width(named[-1]) if named else width0  # type: ignore[return-value]

        later = [w for w in widths if w.start > d.start]
        read = False
        every = _EVERY_WIDTH.search(self.s.text)
        if every and self.s.start + every.start() < d.start:
            every = None  # "uses the length at each width …: a 2 h job at 8× is short only
            # at 8×": a width scope before the job is the rule's, not the job's
        # ("eval-70b at 8x …, short at every width": every width that intent runs at)
        intents = {t.value for t in self.kinds("intent")} or (
            # "eval-70b at 8 GPUs for 30 h: 60 h at 4 GPUs. … offered at every width it
            # tries": a job carried from before runs as the intent named with it
            self._intents_before() if self.carried else set())
        narrowest = self.facts.min_width(intents.pop()) if len(intents) == 1 else \
            min(self.facts.width_chain())
        for c in classes:
            if c.start > d.start:
                # "stays short at every width it can degrade to": the narrowest width
                # (the longest run) and the request's own bound it; "the phase is
                # 4 h at 4×, which is long": a class right after the job is its own
                ats = {width0, narrowest} if every else \
                    {width0} if _OWN_CLASS.fullmatch(
                        self.text(max(d.end, request.end), c.start)) else \
                    {at_width(c.start, c.end)}
                # "long, not short": each class word has its own polarity
                elided = self._elided_contrast(c, widths)
                class_negated = self.negated_in_clause(c.start, c.end) if c is classes[0] and \
                    elided is None and not _CONTRAST.search(self.text(c.end, self.s.end)) \
                    else self.negated_before(c.start)
                for at in sorted(ats):
                    self.add("consequence", (d.value, width0, at, "class", c.kind), c.start,
                             c.end, class_negated, topic="derived length")
                if elided is not None:
                    # "short at 4× but not at 2×": the same class, denied at the other width
                    self.add("consequence", (d.value, width0, self._term_width(elided),
                                             "class", c.kind), elided.start, elided.end,
                             not class_negated, topic="derived length")
                read = True
        tail_models = [m for m in models if m.start > d.start]
        # ("STANDARD: a2-ultragpu-8g (no a3: H100 has no on-demand)": an aside's model
        # is the aside's own)
        tail_models = [m for m in tail_models if self.aside_of(m.start) is None] or tail_models
        if tail_models:
            cue = next((t for t in self.tokens if t.kind == "first" and t.start > d.start), None)
            led = [m for m in tail_models if cue and m.start > cue.start]
            # "expect DWS first, an on-demand A100 next": the model the cue follows
            right_before = [m for m in tail_models if cue and m.end <= cue.start and
                            not self.text(m.end, cue.start).strip(" \n\t*_`")]
            if right_before:
                led = right_before[-1:]
            m = led[0] if led else tail_models[-1]
            name = m.term[1] if m.term[0] == "model" else m.term[1][2]
            lead = bool(led)
            at = at_width(m.start, m.end)
            if name and lead:
                self.add("consequence", (d.value, width0, at, "lead", name), m.start, m.end,
                         self.negated_before(m.start), topic="derived length")
                read = True
                # "… leads with FLEX_START, while at width 8 it … leads with SPOT":
                # each further lead cue states the lead at the width of its clause
                for cue2 in [t for t in self.tokens if t.kind == "first" and
                             t.start > m.end and re.match(r"lead", self.unit_text[
                                 t.start:t.end], re.I)]:
                    m2 = next((x for x in tail_models if x.start > cue2.start), None)
                    name2 = m2 and (m2.term[1] if m2.term[0] == "model" else m2.term[1][2])
                    if m2 is None or not name2:
                        continue
                    self.add("consequence", (d.value, width0, at_width(m2.start, m2.end),
                                             "lead", name2), m2.start, m2.end,
                             self.negated_before(m2.start), topic="derived length")
            elif name:
                # "…, so FLEX_START is not offered at 1×": the negation after the model
                denied = self.negated_before(m.start) or self._too_long_for(m) or bool(
                    _DENIED_AFTER.match(self.unit_text, m.end))
                if denied or re.search(r"\b(?:offered|offers?|available|allowed|eligible|gets?|"
                                       r"keeps?|has|have|fits?)\b", self.s.text, re.I):
                    self.add("consequence", (d.value, width0, at, "offers", name), m.start,
                             m.end, denied, topic="derived length")
                    read = True
                    # "gets DWS rungs at width 2 and also at width 1": each width joined on
                    after = [w for w in widths if w.start > m.end]
                    if after and self._term_width(after[0]) == at:
                        for a, b in itertools.pairwise(after):
                            if not _ALSO_AT.fullmatch(self.text(a.end, b.start)):
                                break
                            self.add("consequence", (d.value, width0, self._term_width(b),
                                                     "offers", name), m.start, m.end, denied,
                                     topic="derived length")
        previous_length: Token | None = None
        intents = [t for t in self.tokens if t.kind == "intent"]
        for d2 in durations[1:]:
            if any(t.value not in {o.value for o in intents if o.start < d.start}
                   for t in intents if d.end <= t.start < d2.start) and \
                    any(o.start < d.start for o in intents):
                # "`make eval-smoke` (eval-7b, ten minutes on one GPU) before the full
                # eval-70b suite, which takes two hours on 8 GPUs": another intent's job
                break
            if previous_length is not None and not any(
                    previous_length.end < w.start < d2.start for w in widths):
                break  # a second length counts only for a width of its own ("and at 1x 16 h")
            if re.search(r"\b(?:an?|another|the\s+other)\s+$",
                         self.unit_text[max(0, d2.start - 12):d2.start], re.I) and \
                    re.match(r"[\s-]*(?:long\s+)?one\b", self.unit_text[d2.end:d2.end + 12],
                             re.I):
                break  # "…, but a 30-minute one is not": another job, not this one's length
            if later and (d2.start > later[0].start or any(
                    w is not request and d2.start > request.end and
                    _STATED_AT.fullmatch(self.text(d2.end, w.start)) for w in later[:1])):
                # (a length after its width, or right before it: "a 2 h job at 4×")
                at = at_width(d2.start, d2.end)
                if at == width0 and d2.value != d.value and re.search(
                        r"\b(?:whereas|while|but|unlike|compared|versus|vs\.?)\b",
                        self.unit_text[d.end:d2.start], re.I):
                    break  # "…, whereas twenty-two hours at width eight …": another job
                if self._names_limit(d2):
                    continue  # "past the 168 h FLEX_START limit" names the limit
                if re.search(r"\b(?:caps?|capped|limits?|limited|max(?:imum)?|ceiling|"
                             r"tops?\s+out)\b(?:\s+(?!at\b|to\b|of\b)[\w-]+){0,3}\s+(?:at|to|of)\s+$",
                             self.unit_text[max(0, d2.start - 40):d2.start], re.I):
                    continue  # "flex-start caps a VM at seven days": the limit, not a length
                cmp = self._comparator(d2)
                if cmp is not None:
                    if not any(c.start > d.start for c in classes):
                        self.add("consequence", (d.value, width0, at, cmp[0], d2.value),
                                 d2.start, d2.end, self.negated_in_clause(d2.start, d2.end),
                                 topic="derived length")
                        read = True
                    continue
                self.add("consequence", (d.value, width0, at, "length", d2.value), d2.start,
                         d2.end, self.negated_before(d2.start), topic="derived length",
                         fix=(self._fix_span(d2),))
                read = True
                previous_length = d2
        return read

    def _elided_contrast(self, c: Token, widths: list[TermTok]) -> TermTok | None:
        """'short at 4× but not at 2×': the width whose class the contrast denies."""
        after = [w for w in widths if w.start >= c.end]
        if len(after) < 2 or not _AT_WIDTH_GAP.fullmatch(self.text(c.end, after[0].start)):
            return None
        return after[1] if _ELIDED_NOT.fullmatch(self.text(after[0].end, after[1].start)) \
            else None

    def _names_limit(self, d: Token, tight: bool = False) -> bool:
        """'the 168 h flex-start limit', 'every one of those lengths fits 168 h': the
        duration is a limit the lengths are compared with, not a length. `tight`:
        only a limit word right after it counts ("1×: 6 h, long, FLEX_START first"
        names a model, not a limit)."""
        # ("runs 8 h and leads with FLEX_START" names the model, not its limit)
        after = _LIMIT_AFTER.match(self.unit_text, d.end) if tight else re.search(
            r"\b(?:limit|max|threshold|cut)|(?<!with\s)\bflex", self.unit_text[d.end:d.end + 25],
            re.I)
        return bool(after or _FITS_BEFORE.search(
            self.unit_text[max(self.s.start, d.start - 24):d.start]) or any(
            # "no flex-start past 168 h": the length the model with a maximum run stops at
            t.kind == "model" and t.value == self.facts.flex_model and t.end <= d.start and
            _MODEL_PAST.fullmatch(self.unit_text, t.end, d.start) for t in self.tokens))

    def _too_long_for(self, m: TermTok) -> bool:
        """'runs 20 h, which is too long for FLEX_START'."""
        return bool(re.search(r"\btoo\s+long\s+for\s+(?:a\s+|the\s+)?$",
                              self.unit_text[max(self.s.start, m.start - 30):m.start], re.I))

    def _carried_lead(self, models: list[TermTok]) -> bool:
        """'A 10 h job at 4× is long. It leads with SPOT': the job of the sentence
        before, and the model it leads with at its requested width."""
        assert self.carried is not None
        m = _PRONOUN_LEAD.match(self.s.text)
        model = next((t for t in models if m and t.start >= self.s.start + m.end()), None)
        if model is None:
            return False
        name = model.term[1] if model.term[0] == "model" else model.term[1][2]
        if not name:
            return False
        hours, width0 = self.carried
        self.add("consequence", (hours, width0, width0, "lead", name), model.start, model.end,
                 self.negated_before(model.start), topic="derived length")
        self.request = self.carried
        return True

    def _carried_width_lead(self, models: list[TermTok]) -> bool:
        """'A 1.5 h job at 4x. At 2x that's 3 h.' then 'So the 2x rungs lead with
        FLEX_START, and 1x leads with FLEX_START as well': what the job of the
        sentences before leads with at each width this one names."""
        assert self.carried is not None
        hours, width0 = self.carried
        found = False
        for lead in self.kinds("first"):
            model = next((t for t in models if t.term[0] == "model" and
                          0 <= t.start - lead.end <= 3), None)
            widths = [t for t in self.terms if t.term[0] == "width" and
                      self.clause_start(lead.start) <= t.start < lead.start]
            if model is None:
                # "the router leads the width-1 rungs with FLEX_START"
                model = next((t for t in models if t.term[0] == "model" and t.start > lead.end
                              and re.fullmatch(r"\s+with\s+", self.unit_text[
                                  max(lead.end, t.start - 6):t.start])), None)
                widths = [t for t in self.terms if t.term[0] == "width" and model is not None
                          and lead.end <= t.start < model.start and _LED_RUNGS.fullmatch(
                              self.text(lead.end, model.start), t.start - lead.end)]
            if model is None or not widths or widths[-1].term[1] not in self.facts.widths or \
                    widths[-1].term[1] > width0:
                continue
            self.add("consequence", (hours, width0, widths[-1].term[1], "lead", model.term[1]),
                     model.start, model.end, self.negated_before(model.start),
                     topic="derived length")
            found = True
        if found:
            self.request = self.carried
        return found

    def _carried_offer(self, models: list[TermTok]) -> bool:
        """'A run that is 30 h at 4× is … 120 h at 1×. At 1× that is past the
        flex-start limit, so the 1× rungs have no FLEX_START': whether the job of
        the sentence before gets a FLEX_START rung at the width this one names
        (or, with 'there', the last one the sentence before named)."""
        assert self.carried is not None
        flex = self.facts.flex_model
        # the last mention is the rung ("past the flex-start limit, so … no FLEX_START")
        model = next((t for t in reversed(models) if t.term == ("model", flex)), None)
        if model is None or not _OFFER_WORDS.search(self.s.text):
            return False
        widths = [t for t in self.terms if t.term[0] == "width" and t.start < model.start]
        after = [t for t in self.terms if t.term[0] == "width" and t.start > model.end and
                 re.fullmatch(r"[^,;:.]*?\b(?:at|on)\s+", self.text(model.end, t.start))]
        if widths:
            at = widths[-1].term[1]
        elif len(after) == 1 and not any(t.term[0] == "width" and t.start > after[0].end
                                         for t in self.terms):
            # "Flex-start is still on the menu at 1x" (a list of widths, "offered at 8×,
            # 4× and 2× but not at 1×", is read with its polarity per width elsewhere)
            at = after[0].term[1]
        elif re.search(r"\bthere\b|\bat\s+that\s+width\b", self.s.text, re.I):
            named = [t for t in self.previous_terms if t.term[0] == "width"]
            if not named:
                return False
            at = named[-1].term[1]
        elif _ALL_WIDTHS.search(self.text(self.s.start, model.start)):
            # "All four widths are long, and every one of them has FLEX_START rungs":
            # the narrowest width the job degrades to, where it runs longest (its
            # intent's minimum, where the unit names one)
            intents = self.intents_in_view()
            at = self.facts.min_width(intents.pop()) if len(intents) == 1 else \
                min(self.facts.width_chain())
        else:
            return False
        hours, width0 = self.carried
        denied = self.negated_before(model.start) or self._too_long_for(model) or \
            self.negated_before(self.s.end, since=model.end) or bool(
            re.search(r"\b(?:loses?|lost|drops?|dropped)\b", self.text(self.s.start, model.start),
                      re.I))
        self.add("consequence", (hours, width0, at, "offers", flex), model.start, model.end,
                 denied, topic="derived length")
        self.request = self.carried
        return True

    def _runs_there(self, durations: list[Token]) -> bool:
        """'If only single A100s are free, the job runs 6 h on one GPU': the job
        of the sentence before, its length at a width."""
        # (the sentence's first length: "A 3.9 h job at 4× …; it is 7.8 h at 2×" is
        # a job of its own)
        return bool(durations) and bool(
            _JOB_RUNS.search(self.text(self.s.start, durations[0].start)) and
            _AT_A_WIDTH.match(self.unit_text, durations[0].end))

    def _sent_to(self, width: TermTok) -> bool:
        """'… dropped to 2x', 'so it tried 1x': the sentence moves a job to `width`."""
        return bool(_DEGRADES_TO.search(self.text(self.s.start, width.start)))

    def _carried_example(self, classes: list[Token], durations: list[Token]) -> bool:
        """'A 1 h job at 8×: at 8× it is short; at 2× (4 h) short': the job of the
        sentence before, stated at each width this one names."""
        assert self.carried is not None
        follow_up = _FOLLOW_UP.match(self.s.text)
        widths = [t for t in self.terms if t.term[0] == "width"]
        # an item that opens with its width: "2×: 2 h, short", "width 4 — 4 h, long",
        # "1 GPU: 16 h"
        keyed = bool(widths) and not self.text(self.s.start, widths[0].start).strip(" `*_") \
            and re.match(r"[`*_]*\s*(?:[:—–=-]|→|->)", self.unit_text[widths[0].end:])
        degraded = self._runs_there(self.kinds("duration")) or any(self._sent_to(w) or (
            _CLAUSE_AT.search(self.text(self.s.start, w.start)) and
            _ITS_JOB.match(self.unit_text, w.end)) for w in widths)
        if not follow_up and not keyed and not degraded and not re.match(
                r"\W*(?:and\s+|then\s+|but\s+|so\s+)?(?:at|on)\b", self.s.text, re.I):
            # "at 2× (4 h) short", an item "2×: 2 h, short, SPOT lead", "if it
            # degrades to 2 GPUs, it runs 20 h there", "…, so at width 1 it is short"
            return False
        hours, width0 = self.carried
        # ("That makes it long at 4×, so the 4× rungs lead with FLEX_START": one width,
        # written twice)
        one_width = len({t.value for t in self.kinds("width")}) <= 1
        if follow_up and one_width:
            widths = widths[:1]
        if follow_up and not one_width and not re.match(
                r"\W*(?:and\s+|then\s+|but\s+|so\s+)?(?:at|on)\b", self.s.text, re.I):
            return False  # "It is short at 8× and long at 4×": each class before its width
        if follow_up and not widths:
            # "A 2 h job at 4× runs 4 h at 2×. That's right at the line, so it's still
            # short": the width the sentence before ran the job at
            named = [t for t in self.previous_terms if t.term[0] == "width"]
            if not named:
                return False
            widths = [TermTok(named[-1].term, self.s.start, self.s.start)]
        read = False
        for i, w in enumerate(widths):
            stop = widths[i + 1].start if i + 1 < len(widths) else self.s.end
            at = w.term[1]
            if follow_up and one_width:
                # "That's inside the flex-start window, so FLEX_START leads at 1×": one
                # width places the whole sentence
                w = TermTok(w.term, self.s.start, self.s.start)
            for c in (c for c in classes if w.end <= c.start < stop):
                self.add("consequence", (hours, width0, at, "class", c.kind), c.start, c.end,
                         self.negated_before(c.start), topic="derived length")
                read = True
            # (a rung names its model: "the first rung there is `a2-ultragpu-1g` FLEX_START")
            models = [m for m in self.terms if (m.term[0] == "model" or (
                m.term[0] == "rung" and m.term[1][2])) and w.end <= m.start < stop]
            for j, m in enumerate(models):
                if not (_LEAD_WORD.search(self.unit_text[m.start:min(stop, m.end + 12)] +
                                          self.unit_text[max(w.end, m.start - 12):m.start]) or
                        _FIRST_RUNG_IS.search(self.unit_text[max(w.end, m.start - 40):m.start]) or
                        _LEADS_THAT_WIDTH.search(self.unit_text[max(w.end, m.start - 40):m.start])):
                    continue
                if j and not _LEAD_WORD.search(self.unit_text[m.end:min(stop, m.end + 12)]) and \
                        re.match(r"[\s`*_]*(?:leads?|leading|goes\s+first|is\s+first)\s*(?:,|;|"
                                 r"and\b|but\b|while\b)", self.unit_text[models[j - 1].end:m.start],
                                 re.I):
                    continue  # "flex-start leads and spot drops to last": flex-start's lead
                name = m.term[1] if m.term[0] == "model" else m.term[1][2]
                self.add("consequence", (hours, width0, at, "lead", name), m.start, m.end,
                         self.negated_before(m.start), topic="derived length")
                read = True
            # ("the job runs 6 h on one GPU": the length written right before its width
            # is that width's, not the one before it)
            for d in (d for d in durations if (_LENGTH_AT.fullmatch(self.text(d.end, w.start)) or (
                    w.end <= d.start < stop and not (i + 1 < len(widths) and _LENGTH_AT.fullmatch(
                        self.text(d.end, widths[i + 1].start))))) and
                      self._comparator(d) is None and not self._names_limit(d, tight=True)):
                self.add("consequence", (hours, width0, at, "length", d.value), d.start, d.end,
                         self.negated_before(d.start), topic="derived length",
                         fix=(self._fix_span(d),))
                read = True
        self.request = self.carried if read else None
        return read

    _AFTER_REQUEST = re.compile(
        r"\s*(?:-?\s*(?:long\s+)?(?:jobs?|runs?|requests?|phases?|tasks?|workloads?|"
        r"dispatch(?:es)?)\s+)?(?:requested\s+)?(?:at|on|with|using|across|over)\s+"
        r"(?:the\s+|an?\s+)?|\s*\(?\s*", re.I)

    def _request_width(self, d: Token, widths: list[TermTok]) -> TermTok | None:
        """The width a worked example's job is requested at: right after its length
        ("a 3 h job at 8×"), else right before it ("an 8-GPU request for half a
        day", "8x, 1 h"), else the first width after it."""
        later = [w for w in widths if w.start > d.start]
        if later and self._AFTER_REQUEST.fullmatch(self.text(d.end, later[0].start)):
            return later[0]
        earlier = [w for w in widths if w.end <= d.start]
        if earlier:
            gap = self.text(earlier[-1].end, d.start)
            # (a decimal's point ends no sentence: "at width 1 a 3.9 h job … and a 4.0 h job")
            if len(gap) <= 40 and not re.search(
                    r"[;]|\.(?!\d)|\b(?:then|degrad\w*|drops?|falls?)\b", gap, re.I):
                return earlier[-1]
        return later[0] if later else None

    @staticmethod
    def _term_width(t: TermTok) -> int | None:
        kind, value = t.term
        if kind == "width":
            return value
        if kind == "family":
            return value[1]
        if kind == "rung":
            return value[1]
        return None

    # -- FLEX_START maximum duration ------------------------------------------------------

    _FITS = re.compile(r"(?:[\s-]+(?:long\s+)?(?:job|run|phase|request)s?)?"
                       r"(?:\s+(?:at|on)\s+[^,;.]{1,20})?\W{0,3}(?:which|that|and|so\s+it)?\s*"
                       r"(?:still\s+|easily\s+|comfortably\s+)?"
                       r"(?P<neg>does\s+not\s+|doesn't\s+|no\s+longer\s+|won't\s+|)"
                       r"(?:(?:fits?|stays?|is|falls?)\s+(?:well\s+|just\s+)?(?:under|within|"
                       r"inside|below)\s+(?:the\s+)?(?:[\w-]+\s+){0,2}(?:limit|max(?:imum)?|cap|"
                       r"ceiling)|fits?\s+(?:in|into|within)\s+(?:a\s+|the\s+)?(?=flex))",
                       re.I)

    def _fits_flex(self, durations: list) -> None:
        """'24 h at 8× is 192 h at 1×, which still fits under the FLEX_START
        limit': that length gets a FLEX_START rung (or, negated, does not)."""
        for d in reversed(durations):  # the length nearest the cue
            m = self._FITS.match(self.unit_text, d.end, self.s.end)
            if m and d.value > self.facts.threshold:
                self.add("flex-for", (d.value,), d.start, d.end, bool(m.group("neg")),
                         topic="FLEX_START maximum run")
                return

    def read_flex_max(self) -> None:
        flex = self.facts.flex_model
        if flex is None:
            return
        fl = [t for t in self.terms if t.term == ("model", flex)]
        durations = self.kinds("duration")
        if not fl and self.previous_model is not None and \
                self.previous_model.term == ("model", flex) and _THE_CAP.match(self.s.text):
            # "Flex-start has a maximum run duration, …. The cap is fourteen days."
            at = self.s.start + _THE_CAP.match(self.s.text).start("cap")
            fl = [TermTok(("model", flex), at, at)]
        there_is = _THERE_IS_A_CAP.search(self.s.text)
        if fl and there_is and not durations:
            # "Is there a runtime cap on FLEX_START?" (its answer says yes or no)
            at = self.s.start + there_is.start()
            self.add("flex-max", (float("inf"),), at, self.s.start + there_is.end(),
                     not self.negated_before(at), topic="FLEX_START maximum run")
            return
        unlimited = re.search(r"\bno\s+(?:[\w-]+\s+)?(?:maximum|max|limit|cap|ceiling)\b|"
                              # "flex-start isn't capped" (but "isn't capped at 24 h" names one)
                              r"\bunlimited\b|\buncapped\b|"
                              r"\b(?:is\s+not|are\s+not|isn[’']t|aren[’']t)\s+capped\b(?!\s+(?:at|to)\b)|"
                              r"\bas\s+long\s+as\s+(?:it|they|needed|the\s+job)|\bindefinitely\b",
                              self.s.text, re.I)
        if fl and not durations and ANY_LENGTH.search(self.s.text) and re.search(
                r"\b(?:offered|available|allowed|used|tried|gets?)\b", self.s.text, re.I):
            unlimited = ANY_LENGTH.search(self.s.text)  # "offered regardless of length"
        if fl and unlimited and not durations:
            at = self.s.start + unlimited.start()
            self.add("flex-max", (float("inf"),), at, self.s.start + unlimited.end(),
                     topic="FLEX_START maximum run")
            return
        # "a job that comes out at exactly 168 h … doesn't fit": a job's own length,
        # whatever bound word the sentence holds
        job_length = bool(durations) and bool(_JOB_LENGTH_BEFORE.search(
            self.unit_text, self.s.start, durations[0].start))
        if fl and durations and (job_length or not MAX_CUE.search(self.s.text)) and \
                len(self.kinds("width")) <= 1:
            # one width at most: "a fortnight-long job can use FLEX_START at width 1"
            offer = re.search(r"\b(?:gets?|offered|has|have|keeps?|eligible|allowed|available|"
                              r"can\s+use|uses?|receives?|fits?\s+(?:in|into|within|under)|"
                              # "1x is 240 h and flex-start allows that"
                              r"(?:allows?|accepts?|covers?|handles?)\s+(?:that|it|this|them))\b" +
                              (r"|\bfits?\b" if job_length else ""), self.s.text, re.I)
            # "→ over the limit, no FLEX_START rung": the rung denied is the offer
            offer = offer or re.search(r"\b(?:no|without)\s+(?:\S+\s+)?$",
                                       self.text(self.s.start, fl[0].start), re.I)
            d = durations[0]
            # ("exactly 168 h (a week)": a restatement is the same length)
            if offer and len({t.value for t in durations}) == 1 and not self.kinds("short") and \
                    not self.kinds("long") and d.value > self.facts.threshold:
                # "a 10-day job still gets a FLEX_START rung"
                self.add("flex-for", (d.value,), d.start, d.end,
                         self.negated_before(fl[0].start), topic="FLEX_START maximum run")
                return
            if not (job_length and MAX_CUE.search(self.s.text)):
                return  # (a job's length beside a limit: "… exceeded the 96-hour limit")
        if not fl or not durations or not MAX_CUE.search(self.s.text):
            return
        if self.length_class(fl[0].start) and not re.search(
                r"\b(?:max(?:imum)?|at\s+most|up\s+to|run\s+duration|limit|cap|tops?\s+out)\b",
                self.s.text, re.I):
            return
        best = None
        for d in durations:
            if any(t.kind in ("short", "long") and abs(t.start - d.start) < 20 and
                   not _CLAUSE_BREAK.search(self.unit_text[min(t.end, d.end):
                                                           max(t.start, d.start)]) and
                   not self.unit_text[max(0, t.start - 4):t.start].lower().endswith("too ")
                   for t in self.tokens):
                continue  # "a 3 h short job"; not "a 3-day limit, so multi-day jobs …"
            # the cue is in the duration's own clause: "Seven days is the ceiling, so
            # a 30 h job …" states no maximum of 30 h
            before = self.unit_text[max(self.s.start, d.start - 60):d.start].lower()
            joint = list(_NEW_CLAUSE.finditer(before))
            if joint:
                before = before[joint[-1].end():]
            # up to the next duration: "240 h, past the 168 h maximum" puts the cue on 168 h
            following = [t.start for t in durations if t.start >= d.end]
            after = self.unit_text[d.end:min(self.s.end, d.end + 20, *following)].lower()
            if _AGAINST_THE_CAP.match(after):
                continue  # "it is 192 h, over the cap": a length measured against it
            near_after = re.search(r"max|limit|cap|ceiling|run\s+duration|at\s+most", after)
            cue = list(re.finditer(r"max|limit|cap|fits?|run\s+duration|up\s+to|beyond|tops?\s+out|"
                                   r"\blives?\s+(?:for\s+)?|\blasts?\s+(?:for\s+)?|lifetime|"
                                   r"(?:stopped|terminated|killed|deleted|reclaimed|ended)\s+after|"
                                   r"longer\s+than|past|ceiling|at\s+most|within|over|"
                                   r"more\s+than|under|below", before))
            if not (near_after or cue or self._comparator(d)):
                continue
            if d.value < 24 and not re.search(r"max|limit|cap|run\s+duration|at\s+most|"
                                              r"stopped|terminated", before + after):
                continue
            distance = 0 if near_after else (len(before) - cue[-1].end() if cue else 30)
            # a word that names the maximum beats a comparison: in "caps out at 24 hours,
            # so anything longer than a day …" the maximum is the 24 hours
            named = bool(near_after) or bool(cue and _MAX_WORD.match(cue[-1].group(0)))
            if best is None or (not named, distance) < best[0]:
                best = ((not named, distance), d, before)
        if best is None:
            self._fits_flex(durations)
            return
        _, d, window = best
        cmp = self._comparator(d)
        over = (bool(cmp and cmp[0] == "over") or bool(
            re.search(r"(?:longer\s+than|beyond|past|over|more\s+than|exceed\w*)\s*$", window))
                ) and not _ENDED_AFTER.search(window)  # "stopped after four days" is the maximum
        negated = self.negated_before(d.start) and \
            not re.search(r"\bno(?:t)?\s+(?:longer|more)\s+than\b", window)
        if over:
            # "longer than three days never gets a FLEX_START rung", "more than two
            # days is too long for flex-start": the exclusion comes after the length
            excluded = self.negated_before(fl[0].start, since=d.end) if fl[0].start > d.end \
                else False
            excluded = excluded or bool(re.search(
                r"\btoo\s+long\s+for\b|\b(?:skips?|drops?|dropped|loses?|omit\w*|removed?|"
                r"rejected|refused|denied|declined|turned\s+away)\b|"
                r"\bnot\s+(?:offered|eligible|allowed)|\bno\s+longer\s+(?:offered|eligible)|"
                r"\bleaves?\s+(?:\S+\s+){0,2}?(?:out|off)\b",
                self.unit_text[d.end:self.s.end], re.I))
            # "FLEX_START rungs are dropped at a width when the length exceeds 168 h"
            excluded = excluded or (fl[0].end <= d.start and bool(re.search(
                r"\b(?:dropped|skipped|removed|omitted|left\s+out|not\s+offered|withheld)\b",
                self.text(fl[0].end, d.start), re.I)))
            if not (negated or excluded):
                if _STILL_GETS.search(self.unit_text[d.end:self.s.end]):
                    # "a job longer than 168 h at a width still gets FLEX_START there"
                    self.add("flex-for", (d.value, "over"), d.start, d.end,
                             topic="FLEX_START maximum run")
                return  # "FLEX_START for jobs over 2 days": not a statement of the maximum
            negated = False  # "never offered past two days": the maximum is two days
        if not over and not negated and fl[0].start > d.end and _GETS_NO.search(
                self.text(d.end, fl[0].start)):
            # "jobs up to 168 h get no FLEX_START rung": a job that long is denied it
            self.add("flex-for", (d.value,), d.start, d.end, True,
                     topic="FLEX_START maximum run")
            return
        # every restatement of the same length is the same claim, and the fix mends all
        same = tuple(self._fix_span(t) for t in durations if t.value == d.value)
        self.add("flex-max", (d.value,), d.start, d.end, negated,
                 topic="FLEX_START maximum run", fix=same)
        if not negated and _STRICTLY_UNDER.search(
                self.unit_text[max(self.s.start, d.start - 30):d.start]):
            # "DWS rungs need a length strictly under 168 h": a job of exactly 168 h
            # would get none
            self.add("flex-for", (d.value,), d.start, d.end, True,
                     topic="FLEX_START maximum run")
        for t in durations:
            later = [f for f in fl if f.start > t.end]
            if t.start > d.end and t.value == d.value and later and re.search(
                    r"\bexactly\s+$", self.unit_text[max(self.s.start, t.start - 12):t.start],
                    re.I) and re.search(r"\b(?:gets?|keeps?|has|have|receives?)\b",
                                        self.text(t.end, later[0].start), re.I):
                # "FS max = 168 h but it's strict: exactly 168 h gets no FS rung": the
                # edge's own case, which says whether the limit includes it
                self.add("flex-for", (t.value,), t.start, t.end,
                         self.negated_before(later[0].start, since=t.end),
                         topic="FLEX_START maximum run")
        for t in durations:
            # "168 h, i.e. five days": a restatement in other units is a claim of its own
            if t.start > d.end and t.value != d.value and _RESTATED.fullmatch(
                    self.unit_text[d.end:t.start]):
                self.add("flex-max", (t.value,), t.start, t.end, negated,
                         topic="FLEX_START maximum run",
                         fix=(self._fix_span(t),))
