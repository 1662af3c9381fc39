"""Cue patterns shared by the readers: arrows, joints, topics, comparators."""

from __future__ import annotations

import re

ORDERABLE = ("backend", "lane", "family", "width", "rung")
MAX_SENTENCE = 600  # characters
# Every branch starts with its own character, so the engine skips ahead to the
# candidates (assertions about what comes before come after that character).
SENTENCE_END = re.compile(r"[.!?](?<!\.[a-z][.!?])(?<!e\.g[.!?])(?<!i\.e[.!?])(?<!etc[.!?])"
                          # after a single digit only where its line or a new sentence
                          # follows: "Allowed widths are 1, 2, 4 and 8." / "8. A width-4 …"
                          r"(?:(?<!\b\d[.!?])|(?<=\d\.)(?=[ \t]*\n|[ \t]*$|[ \t]+[A-Z][a-z]))"
                          r"(?=\s|$)"
                          r"|\?(?=\S)|;\s|\n(?=\s*(?:[-*+]|\d+[.)])\s)"
                          # an imperative on the next line starts its own sentence, even
                          # where a list item's lazy continuation joins the lines
                          r"|(?<=[\w`)*])[ \t]*\n(?=[ \t]*(?:Do(?:\s+not|n['’]t)?|Never|Always|"
                          r"Count|Treat|Prefer|Avoid|Remember|Note|Keep)\s)"
                          # a chat message's emoji ends its sentence ("… ahead of SLURM 🙂
                          # it's dead last"); ✅ and ❌ (U+2705, U+274C) mark cells instead
                          r"|[\U0001F300-\U0001FAFF]+[\ufe0f]*(?=\s)")
# A line that is a setting: "a3-highgpu-*: SPOT, FLEX_START", "verdicts: APPROVE"
SETTING_LINE = re.compile(r"[ \t]*[`*]*[\w{][\w.*{}/-]*[`*]*[ \t]*[:=][ \t]+\S")
QUOTED = re.compile(r"\"[^\"]{1,240}\"|“[^”]{1,240}”|«[^»]{1,240}»")
# "Unlike X, which …, Y …": a contrast opening a sentence
CONTRAST = re.compile(r"^\W*(?:unlike|in\s+contrast\s+to|as\s+opposed\s+to|compared\s+(?:to|with))"
                      r"\b[^,;:]*[,;:](?:\s*(?:which|that|where|who)\b[^,;:]*[,;:])?", re.I)
ANY_LENGTH = re.compile(r"\b(?:regardless\s+of\s+(?:the\s+)?(?:job(?:'s)?\s+)?(?:length|duration|"
                        r"how\s+long)|whatever\s+(?:the|its|their)\s+(?:job(?:'s)?\s+)?(?:length|duration)|"
                        r"no\s+matter\s+how\s+"
                        r"long|however\s+long|(?:of|at|for)\s+any\s+(?:job\s+)?(?:length|duration)|"
                        r"for\s+(?:all|every|any)\s+(?:job\s+)?lengths?)\b", re.I)
DEFINES = re.compile(r"\s+(?:means|is\s+defined\s+as|refers\s+to|stands\s+for)\b", re.I)
# "short_threshold: 8h": a config-like key reads as its words
# a config key read as words ("short_threshold_hours: 4"); not an environment
# variable ("CUDA_VISIBLE_DEVICES=0,1"), which is all capitals
KEY_WORDS = re.compile(r"^\W{0,4}(?!(?-i:[A-Z0-9_]+)\b)[a-z0-9]+(?:_[a-z0-9]+)+"
                       r"(?=`?\s*(?:[:=|]|is\b|are\b|(?:was\s+|has\s+been\s+)?(?:raised|lowered|"
                       r"bumped|increased|decreased|changed|moved|set|cut|dropped)\b|"
                       # "short_threshold_hours — default 6", "**key**" over "Default: 6"
                       r"\s*(?:[—–(-]\s*)?defaults?\b))", re.I)
# A value changed to another ("raised from four hours to twelve"): one list for
# the readers that take the new value as today's
CHANGE_VERBS = (r"(?:raised|lowered|bumped|increased|decreased|changed|moved|cut|dropped|"
                r"extended|shortened|reduced)")
# a chain its writer then denies: "(8 → 2 does not happen)", "8x → 1x, which never happens"
CHAIN_DENIED = re.compile(r"[\s)]*,?\s*(?:which\s+|that\s+)?(?:(?:does\s+not|doesn['’]t|never|"
                          r"won['’]t|will\s+not|cannot|can['’]t)\s+(?:happens?|occurs?|exists?)\b|"
                          r"(?:is|are)\s+(?:not\s+(?:possible|allowed|a\s+thing)|impossible))",
                          re.I)
ARROW = re.compile(r"→|->|=>|⟶|⇒|➜|➔|▶|►|⇨|⮕|»|(?<=\s)>(?=\s)")
STRONG_THEN = re.compile(r"\bthen\b|\bnext\b|followed\s+by|→|->|=>|⟶|⇒|➜|➔|▶|►|⇨|⮕|»|(?<=\s)>(?=\s)"
                          r"|(?:straight|directly|immediately)\s+(?:back\s+)?to|"
                          r"\bfall(?:s|ing)?\s+(?:straight\s+)?back\s+to|\bdrops?\s+to|"
                          r"\bdegrades?\s+to|\bretries\s+at|\bsteps?\s+down\s+to", re.I)
ADJACENT = re.compile(r"→|->|=>|⟶|⇒|➜|➔|▶|►|⇨|⮕|\bthen\b|\bnext\b|straight|directly|immediately|"
                       r"\bfalls?\s+back\s+to|\bretries\s+at|\bfollowed\s+by", re.I)
FILLER = re.compile(
    r"\b(?:the|a|an|and|or|lanes?|rungs?|machines?|vms?|on|capacity|misses|miss|at|widths?|"
    r"finally|only|down|to|gpus?|backends?|one|comes?|is|are|tried|try|tries|first|last|"
    r"box(?:es)?|nodes?|instances?|pools?|cloud|cluster|provisioning|models?|jobs?|then|next|"
    r"after|that|fall(?:s)?|back|falling|degrades?|drops?|from|with|of|in|order|resort|"
    r"followed|by|straight|directly|it|if|still|dry|full|goes|go|move|moves|over|"
    r"preempt|lane|queue|as|s|own|family|families|rung|types?|\d+|gpu|requests?|"
    r"narrower|wider|smaller|router|dispatch(?:er)?|we|job|jobs|sends?|moves?|"
    r"steps?|retries|retry|tries|falls|there|halv(?:es|ing|e)|[a-z]\))\b"
    r"|[,:()/\[\]→>\-–—=⟶⇒➜➔▶►⇨⮕─━»+&|]|\s", re.I)
PRICE = re.compile(r"\$\s?\d|\d\s?(?:usd|eur)\b|/h(?:ou)?r\b|per\s+hour\b", re.I)
PERMISSION = re.compile(r"\b(?:allow\w*|permit\w*|support\w*|offer\w*|accept\w*|available|never|"
                        r"no|not|"
                         r"n't|cannot|can|may|might|only|use[sd]?|using|run[s]?|gets?|takes?|"
                         r"come[s]?|launch\w*|provision\w*|tried|tries|eligible|forbidden|"
                         r"request(?:s|ed)?(?=\s+(?:an?\s+)?(?:spot|flex|dws|standard|on-demand|"
                         r"regular|preemptible))|"
                         r"excluded|includ\w*|is|are|falls?\s+back\s+to|drops?\s+to|moves?\s+to|"
                         # "H100 also has on-demand (STANDARD) rungs"
                         r"ha(?:s|ve)\s+(?:\S+\s+){0,3}?(?:rungs?|machines?|vms?|capacity|shapes?))\b|"
                         r"n't\b|❌|✅",
                        re.I)
# ", and the critic REVISEs it": a new clause, so a negation before it stays behind
CLAUSE_JOINT = re.compile(r",\s+(?:so|but|and|which|because|since|yet|while|whereas|only|instead|"
                           r"though|although|hence|thus|where)\b|\s\((?=[^)]*\))|"
                           # a comma splice: "spot isn't dropped, it's just the last choice"
                           r",\s+(?:it|they)(?:['’](?:s|re)\b|\s+(?:is|are)\b)", re.I)
COND = re.compile(r"^\s*(?:if|when|whenever|unless|once|where|while)\b[^,:]*[,:]", re.I)
KEY_ORDER = re.compile(r"(?:\b|_)(?:order|sequence|ladder|priority|priorities|fallbacks?|failover|"
                        r"chain|rungs|preference|walk|path|families|lanes|widths|backends)"
                        r"\s*(?:is|are)?\s*[:=]\s*[\[(]?\s*$", re.I)  # "families: [a, b]" too
IN_ORDER = re.compile(r"\bin\s+(?:this|that|the\s+following|config)?\s*order\b|"
                       r"\bin\s+order\b|\bordered\b|\bone\s+after\s+the\s+other\b", re.I)
STRONG_CONTEXT = re.compile(
    r"\b(?:rout(?:e|es|er|ing)|dispatch\w*|fall\s*back|fallbacks?|failover|rungs?|ladder|"
    r"capacity|stockouts?|backend-router|exhausted|misses)\b", re.I)
# Length classes and widths are ladder facts only where the text is about the
# ladder: a provisioning model, a lead, rungs, the router. "Short (<24h): the
# gpu-short QoS" and "15x H100 nodes" are about something else.
LENGTH_TOPIC = re.compile(r"\b(?:lead(?:s|ing)?|rungs?|ladder|rout(?:e|er|ing)|dispatch\w*|"
                           r"degrad\w*|backends?|provisioning|spot|flex[_ -]?start|"
                           r"(?-i:STANDARD)|on[- ]demand|"
                           r"preemptible|dws|threshold|cut-?off|length\s+class(?:es)?|wall-?clock|"
                           r"counts?\s+as\s+(?:a\s+)?(?:short|long)|"
                           r"(?:short|long)\s+(?:jobs?|runs?|phases?)\s+(?:are|is|means?)|"
                           # a glossary's entry: "Short job: a job whose length …"
                           r"(?:short|long)\s+(?:jobs?|runs?|phases?)(?=[*_`]*\s*[:=—–])|"
                           r"short\s*(?:vs\.?|versus|/|and|or)\s*long|long\s*(?:vs\.?|/)\s*short)\b|"
                           r"[\"“*_]?\b(?:short|long)\b[\"”*_]?\s+(?:here\s+|now\s+|today\s+)?"
                           r"(?:means|is\s+defined\s+as)\b|"
                           r"\b(?:jobs?|runs?|phases?)\b[^.;]{0,30}\b(?:are|is)\s+(?:short|long)\b|"
                           # "runs 4 h at 1× and is still short there": a worked example
                           r"\b(?:is|are|stays?|remains?|becomes?|turns?)\s+(?:still\s+|now\s+|"
                           r"already\s+)?(?:short|long)\s*(?:there|then|again|now|at\b|on\b|"
                           r"[.,;)]|$)", re.I)
WIDTH_TOPIC = re.compile(r"(?:\b|_)widths?\b|\bchain\b|\bdegrad\w*|\bnarrow\w*|\brungs?\b|"
                         r"\bfalls?\s+back|\bdrops?\s+(?:straight\s+|down\s+)?to\b|\bsteps?\s+down\b|"
                          r"\bladder\b|\bre-?shard\w*|\bhalv\w*|\bwalk(?:s|ed|ing)?\b|"
                          # "you can also ask for 3×": a request names a width
                          r"\b(?:ask|request)(?:s|ed|ing)?\s+(?:for\s+)?\d+\s*[×x](?!\w)", re.I)
CLASS_WORDS = re.compile(r"\b(?:jobs?|runs?|phases?|work(?:loads?)?|tasks?|ones?|dispatch(?:es)?|"
                          # "crosses into long territory", "the short bucket"
                          r"requests?|territory|side|bucket|category|class|regime)\b", re.I)
MAX_CUE = re.compile(r"\b(?:max(?:imum)?|at\s+most|up\s+to|limit(?:ed|s)?|cap(?:ped|s)?|fits?|"
                     r"tops?\s+out|"
                     r"lives?\s+(?:for|up\s+to)|lifetime|lasts?\s+(?:for|up\s+to)|"
                      r"no\s+longer\s+than|longer\s+than|beyond|exceed\w*|run\s+duration|"
                      r"capped|ceiling|within|over|more\s+than|under|below|past|"
                      r"(?:stopped|terminated|killed|deleted|reclaimed|preempted)\s+after|"
                      r"too\s+long\s+for|only\s+(?:where|"
                      r"for|when|if))\b", re.I)
MIN_CUE = re.compile(r"\b(?:min(?:imum)?(?:[_-]width)?|at\s+least|never\s+(?:\w+\s+){0,2}below|"
                      r"needs\s+(?:at\s+least\s+)?(?:an?\s+)?(?:full\s+|whole\s+)?(?=\d|one|two|"
                      r"four|eight|single)|"
                      r"not\s+(?:(?:go|drop|degrade|fall|narrow)\s+)?below|"
                      r"floor|no\s+(?:narrower|further|lower)\s+than|never\s+(?:narrower|"
                      r"lower)|stop(?:s|ping|ped)?\s+at|bottoms?\s+out|"
                      # "goes 8× → 4× → 2× and stops there" (not "… stops there once it
                      # lands": a condition, not a floor)
                      r"(?:and|then)\s+(?:then\s+)?stops(?:\s+there)?(?!(?:\s+there)?,?\s+(?:if|"
                      r"when|once|unless|as\s+soon|on\s+success)\b)|"
                      r"(?:and|then)\s+(?:then\s+)?gcp\s+is\s+(?:done|finished|over))\b", re.I)
REACH_CUE = re.compile(r"\b(?:degrades?\s+(?:down\s+)?to|down\s+to|run\s+(?:at|on)|runs?\s+at|"
                        r"retried\s+(?:at|on)|falls?\s+(?:back\s+)?to|"
                        r"asks?\s+for|requests?|lands?\s+on|tries|try|uses?|gets?|"
                        r"ends?\s+up\s+(?:on|at)|winds?\s+up\s+(?:on|at)|"
                        r"drops?\s+to|goes\s+(?:down\s+)?to|all\s+the\s+way|as\s+narrow\s+as|"
                        r"fall\s+back\s+to|can\s+(?:\w+\s+){0,2}at|reaches?)\b", re.I)
AUTO = re.compile(r"\bauto(?:matic(?:ally)?)?[- ]?(?:ladder|dispatch|routing|walk)?\b|"
                   r"\bby\s+default\b|\bwithout\s+(?:an?\s+)?explicit\b|\bon\s+its\s+own\b|"
                   r"\bby\s+itself\b|\bdefault\s+(?:ladder|walk|path|chain|route|routing)\b|"
                   r"\bladder\s+itself\b", re.I)
EXPLICIT = re.compile(r"\bexplicit(?:ly)?[- ](?:intent|opt[- ]in|request|only|flag)|"
                       r"\bopt[- ]in\b|\bmanual(?:ly)?\b|\bby\s+hand\b|\bhand[- ]picked\b|"
                       r"\bon\s+request\b|\breserved\s+for\b|\bskip(?:s|ped)?\b[^.;]*\bunless\b|"
                       r"\bonly\s+(?:when|if)\s+(?:\w+\s+){0,4}(?:asks?|requests?|explicit)|"
                       # "dispatch only considers 8× when the plan sets `explicit_wide: true`"
                       r"\bonly\s+(?:[\w×`]+\s+){1,3}(?:when|if)\b[^.;]{0,40}?"
                       r"(?:\bexplicit|\bflag\b|\bopts?[- ]in\b|"
                       # "only show up when the plan sets `ladder: wide`"
                       r"\b(?:sets?|pins?|passes?|adds?|asks?\s+for)\b)|"
                       # "8x rungs need the --allow-8x flag", "8g only w/ --allow-8x",
                       # "gated behind a flag"
                       r"\b(?:needs?|requires?|gated\s+(?:behind|on)|behind)\s+(?!no\b|not\b|any\b)"
                       r"(?:an?\s+|the\s+)?"
                       r"(?:[\w`-]+\s+){0,2}?(?:flag|opt[- ]in|[`]*--[\w-]+)|"
                       r"\bonly\s+(?:with|w/)\s+(?:an?\s+|the\s+)?[`]*--[\w-]+", re.I)
# Claims over every family or every intent name none of them ("both machine
# families offer all three models", "all four intents can run on one GPU"):
# the readers expand these, and the engine reads a unit that has one though
# it names no entity.
EVERY_FAMILY = re.compile(r"\b(?:both|all|every|each|either|any)\s+(?:of\s+the\s+)?"
                          r"(?:(?:(?:gpu|gcp|machine)\s+)?famil(?:y|ies)|"
                          # "both GPU types": two kinds of GCP machine, not RunPod's ids
                          r"(?<=both\s)(?:gpu|gcp\s+gpu)\s+types|"
                          # "every GCP machine type on the ladder"
                          r"(?:gcp\s+|gpu\s+)?machine[\s-]types?\s+on\s+the\s+ladder)\b", re.I)
# "any explicit intent" is the retired explicit-intent rule, not every intent
# A quantifier over every value of what follows: "whatever width was requested",
# "regardless of the intent" (a pattern fragment)
REGARDLESS = r"(?:whatever|regardless\s+of|no\s+matter|irrespective\s+of)"
# A length past which something stops: "flex-start past 168 h" (a pattern fragment)
PAST = r"(?:past|over|beyond|above|after|longer\s+than|more\s+than)"
EVERY_INTENT = re.compile(r"\b(?:all|every|each|any)\s+(?:(?:of\s+the|the|our)\s+)?"
                          r"(?:(?!explicit\b|special\b|particular\b|specific\b)(?P<which>\w+)\s+)?"
                          r"(?:plan\s+)?intents?\b", re.I)
