"""The claim engine: facts follow the ladder config, accuracy on the claims
corpus stays above its floors, suggestions pass the lint that made them,
lexicon gates never hide a match, and the invariants hold for any ordering."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from lint import lexicon
from lint.facts import Facts
from router import config
from tests.lint_support import lint

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "claims_corpus"
EXAMPLE = ROOT / "examples" / "workspace"
PACKAGED = config.PACKAGED_LADDER.read_text(encoding="utf-8")


def changed_ladder(tmp_path: Path) -> Path:
    """Other widths, threshold, FLEX_START maximum, family and lane order."""
    text = PACKAGED.replace("widths: [1, 2, 4, 8]", "widths: [1, 2, 4]")
    text = text.replace("short_threshold_hours: 4", "short_threshold_hours: 6")
    text = text.replace("flex_start_max_run_hours: 168", "flex_start_max_run_hours: 72")
    text = text.replace("families: [a100-80gb, h100-80gb]", "families: [h100-80gb, a100-80gb]")
    text = text.replace("slurm_lanes: [campus-a100, campus-preempt]",
                        "slurm_lanes: [campus-preempt, campus-a100]")
    path = tmp_path / "ladder.yaml"
    path.write_text(text, encoding="utf-8")
    return path


# (statement, flagged under the packaged ladder, flagged under the changed one)
FOLLOWS = [
    ("Widths degrade 8× → 4× → 2× → 1× on capacity misses.", False, True),
    ("Widths degrade 4× → 2× → 1× on capacity misses.", False, False),
    ("Short jobs (under 4 h) lead with SPOT.", False, True),
    ("Short jobs (under 6 h) lead with SPOT.", True, False),
    ("FLEX_START runs at most 7 days.", False, True),
    ("FLEX_START runs at most 72 hours.", True, False),
    ("The router tries campus-a100 before campus-preempt.", False, True),
    ("At one width the router tries `a3-highgpu-4g` before `a2-ultragpu-4g`.", True, False),
    ("A 3 h job at 4× that degrades to 2× runs 6 h there and is long.", False, False),
    ("A 2 h job at 4× that degrades to 2× runs 4 h there and is short.", True, False),
    # "a full node" is the config's widest width: 8× packaged, 4× changed
    ("A full node for 1 h that degrades to 1× runs 8 h there.", False, True),
    ("A full node for 1 h that degrades to 1× runs 4 h there.", True, False),
    ("Only jobs under 4 hours are short; everything else is long.", False, True),
    ("short_threshold: 6h", True, False),
    ("family order: a100-80gb, h100-80gb", False, True),
    # an elided chain of GPU counts: 8 is no width of the changed ladder
    ("On capacity misses the router asks for eight GPUs, then four, then two, then one.",
     False, True),
    ("On capacity misses the router asks for eight GPUs, then six, then four.", True, True),
    # one bare number after a width is not a chain
    ("## Dispatch\n\nTrain on 8 GPUs, then 2 for the eval.", False, False),
    ("When `a2-ultragpu-8g` is full, an 8-GPU request goes straight to `a2-ultragpu-1g`.",
     True, True),
    # a miss at a width above every intent's floor moves to the next width, not SLURM
    ("Once the 8× and 4× rungs have missed, dispatch drops to the SLURM lanes.", True, True),
    ("All four intents can run on a single GPU if that is all the ladder finds.", True, True),
    ("All intents except eval-70b can run on one GPU.", False, False),
    ("## Compute backends\n\nBoth GPU families can be requested on-demand.", True, True),
    # a later cue in its own clause has its own subject and polarity
    ("Never put SLURM ahead of GCP: the cluster is reached only once every GCP width has "
     "missed.", False, False),
    ("The campus lanes come before RunPod, and GCP comes before both.", False, False),
    ("A 2× request that misses tries the 1× GCP rungs next, and only after those the "
     "campus lanes.", False, False),
    ("An eval-70b run of two hours at 4× that degrades to 2× (its floor) takes 4 h there.",
     False, False),
    ("The audio step oversamples 2× before the nonlinearity and 4× for the distortion model.",
     False, False),
    # a 'FLEX_START offered?' column: 100 h fits under 168 h, not under 72 h
    ("## Degraded widths\n\n| Width | Length there | FLEX_START offered? |\n"
     "|---|---|---|\n| 1× | 100 h | yes |",
     False, True),
    ("**Q: Which backend does dispatch try first?**\n\nA: The campus cluster.", True, True),
    ("**When does the paid cloud get used?**\nWhenever GCP has missed at the requested width.",
     True, True),
    ("RunPod comes before the SLURM lanes so that jobs stop waiting in the queue.", True, True),
    ("## Compute backends\n\nA 5-day job still fits in flex-start.", False, True),
    ("## Compute backends\n\nFor a 4× request the router never goes below 2× on GCP.",
     True, True),
    ("## Compute backends\n\nFor a 4× request the router never goes below 1× on GCP.",
     False, False),
    ("## Compute backends\n\nWidths you can put in a §9 phase: 1, 2, 4, 8 and 16.", True, True),
    ("## Compute backends\n\nWidths you can put in a §9 phase: 1, 2 and 4.", False, False),
    ("## Compute backends\n\nA job leaves GCP only after the 1× rungs have missed. From "
     "there it goes straight to RunPod.", True, True),
    ("## Compute backends\n\nBoth machine families offer all three provisioning models.",
     True, True),
    ("## Compute backends\n\nThe campus cluster takes over when GCP has nothing left. The "
     "first lane dispatch submits to is `campus-preempt`.", True, False),
    # a miss in a relative clause is a conditional
    ("## Compute backends\n\nA 4× request that misses never tries 2×.", True, True),
    ("## Compute backends\n\nA 4× request that misses falls to 1× directly.", True, True),
    ("## Compute backends\n\nA 4× request that misses tries 2× next.", False, False),
    # a continuation keeps the length class and the last model of the sentence before
    ("## Compute backends\n\nLong jobs lead with FLEX_START; after that the router tries SPOT, "
     "and only then STANDARD.", True, True),
    ("## Compute backends\n\nLong jobs lead with FLEX_START; after that the router tries "
     "STANDARD, and only then SPOT.", False, False),
    ("## Compute backends\n\nA job leaves GCP only after the 1× rungs have missed. From "
     "there it goes straight to the SLURM lanes.", False, False),
    ("## Compute backends\n\nFLEX_START is offered for every job, whatever its length.",
     True, True),
    # a history note ends where today begins; one the text endorses is a claim
    ("## Compute backends\n\nThe old guide told agents to try RunPod before SLURM, but today "
     "RunPod comes first.", True, True),
    ("## Compute backends\n\nThe old guide told agents to try RunPod before SLURM, but today "
     "SLURM comes before RunPod.", False, False),
    ("## Compute backends\n\nThe old guide told agents to try RunPod before SLURM.",
     False, False),
    ("## Compute backends\n\nThe previous guide said the 8× rungs were explicit-intent-only, "
     "and that still holds today.", True, True),
    # "does not narrow at all" denies the halving; "if DWS can't deliver" is a miss
    ("## Compute backends\n\nAfter an 8× miss the router does not narrow on GCP at all; it "
     "moves on to the next backend.", True, True),
    ("## Compute backends\n\nLong jobs lead with flex-start, and if DWS can't deliver it "
     "tries spot VMs next, keeping on-demand for the very end.", True, True),
    ("## Compute backends\n\nLong jobs lead with flex-start, and if DWS can't deliver it "
     "tries on-demand next, keeping spot for the very end.", False, False),
    # "end up on" reaches a width as "run on" does
    ("## Compute backends\n\nEvery intent, `eval-70b` included, can end up on a single-GPU "
     "rung.", True, True),
    ("## Compute backends\n\nEvery intent except `eval-70b` can end up on a single-GPU rung.",
     False, False),
    # a bare list of numbers under a heading about widths is the list of widths
    ("## Compute backends\n\n### Allowed widths\n\n1, 2, 4, 8 and 16 GPUs.", True, True),
    ("## Compute backends\n\n### Widths\n\n1, 2, 4 and 8.", False, True),
    ("## Release notes\n\n1, 2, 4 and 16.", False, False),
    # a heading that names a length class is the class of the chain under it
    ("## Compute backends\n\n### Long jobs\n\nFLEX_START → SPOT → STANDARD.", True, True),
    ("## Compute backends\n\n### Long jobs\n\nFLEX_START → STANDARD → SPOT.", False, False),
    ("## Compute backends\n\n### Short jobs\n\nSPOT → FLEX_START → STANDARD.", False, False),
    # a config key written in prose, and an inclusive "up to and including"
    ("## Compute backends\n\n`short_threshold_hours` is 12 in the packaged ladder.",
     True, True),
    ("## Compute backends\n\n`short_threshold_hours` is 4.", False, True),
    ("## Length classes\n\n- short: up to and including 4 h\n- long: over 4 h", True, True),
    # the maximum is stated in its own clause, not in the worked example after ", so"
    ("## Compute backends\n\nSeven days is the ceiling for flex-start, so a 30 h job at 8× "
     "(240 h at 1×) loses its FLEX_START rung only at 1×.", False, True),
    # a clause with its own subject ends the objects of the cue before it
    ("## Compute backends\n\nThe SLURM lanes are tried only after GCP has missed, and RunPod "
     "only after that.", False, False),
    ("## Compute backends\n\nThe SLURM lanes come after GCP, and RunPod comes after both.",
     False, False),
    ("## Compute backends\n\nRunPod is used only after GCP and the SLURM lanes are exhausted.",
     False, False),
    ("## Compute backends\n\n❌ Do not expect a pod before the campus cluster has been tried: "
     "RunPod comes after both SLURM lanes.", False, False),
    ("## Compute backends\n\nThere is one more rung after RunPod: `campus-preempt`.",
     True, True),
    # "No," answers a question; it does not negate the answer
    ("## Compute backends\n\n**Is 8x opt-in?** No, it's the top of the automatic ladder.",
     False, True),
    # a list of models that turns to denied; a model that is one family's alone
    ("## Compute backends\n\nH100 nodes: spot or flex-start, never regular VMs.", False, False),
    ("## Compute backends\n\nH100 nodes: spot or on-demand, never flex-start.", True, True),
    ("## Compute backends\n\nOnly the A100 family has STANDARD (on-demand) rungs.",
     False, False),
    ("## Compute backends\n\nOnly the H100 family has STANDARD rungs.", True, True),
    ("## Compute backends\n\n`a3-highgpu-*` is FLEX_START/SPOT only: the router never asks "
     "for an on-demand H100.", False, False),
    # each class word has its own polarity; "though" starts a clause of its own
    ("## Compute backends\n\nA 1 h job at 4× runs 4 h at 1×: long, not short.", False, True),
    ("## Compute backends\n\nA 40 h job at 8× runs 320 h at 1×, so 1× has no FLEX_START "
     "rung, though 4× (80 h) still has one.", False, True),
    # how length follows width: GPU-hours are kept, the class is decided at each width
    ("## Compute backends\n\nA job's length doesn't change when the width degrades.",
     True, True),
    ("## Compute backends\n\nTotal GPU-hours don't change when the width degrades.",
     False, False),
    ("## Compute backends\n\nHalving the width halves the wall-clock.", True, True),
    ("## Compute backends\n\nHalving the width doubles the wall-clock.", False, False),
    ("## Compute backends\n\nThe length class is decided once, at the requested width.",
     True, True),
    ("## Compute backends\n\nThe length class is not fixed at the requested width: it is "
     "decided again at each width.", False, False),
    # a result clause (", so …") is not an object of the cue before it
    ("## Compute backends\n\nThe SLURM lanes are tried after the narrowest GCP rungs and "
     "before RunPod, so a job on campus-a100 has already missed on GCP.", False, False),
    # an ordinal on one of a backend's own lanes places that lane, not the backend
    ("## Compute backends\n\nThe first SLURM lane is campus-a100.", False, True),
    ("## Compute backends\n\n`campus-a100` is the last SLURM lane.", True, False),
    ("## Compute backends\n\nEvery GCP width is tried before the first SLURM lane.",
     False, False),
    # "only after" is its own reading; a width on a backend qualifies it
    ("## Compute backends\n\nA 2× request goes to 1× next, and only after the 1× GCP rungs "
     "miss does it reach the SLURM lanes.", False, False),
    # the maximum is the duration the cue is written on
    ("## Compute backends\n\nTen days is 240 h, past the 168 h maximum run duration, so "
     "the ladder offers no FLEX_START rung.", False, True),
    ("## Compute backends\n\nTen days is 240 h, past the 72 h maximum run duration, so "
     "the ladder offers no FLEX_START rung.", True, False),
    # "the only X rungs are on F": X is F's alone
    ("## Compute backends\n\nThe only on-demand rungs are on `a2-ultragpu` machine types.",
     False, False),
    ("## Compute backends\n\nThe only on-demand rungs are on `a3-highgpu` machine types.",
     True, True),
    # rows that change the provisioning model order models, not families
    ("## Rungs\n\n| # | Machine type | Provisioning |\n|---|---|---|\n"
     "| 1 | `a2-ultragpu-8g` | SPOT |\n| 2 | `a3-highgpu-8g` | SPOT |\n"
     "| 3 | `a2-ultragpu-8g` | FLEX_START |", False, True),
    # a table whose header is about the ladder puts its rows in context
    ("| Requested | Chain on capacity misses |\n|---|---|\n| 8× | 8× → 4× → 1× |",
     True, True),
    ("| Requested | Chain on capacity misses |\n|---|---|\n| 4× | 4× → 2× → 1× |",
     False, False),
    # an elided chain of number words goes on at commas
    ("## Compute backends\n\nIf eight GPUs aren't available, the router asks for six, then "
     "four, two, and finally one.", True, True),
    ("## Compute backends\n\nIf eight GPUs aren't available, the router asks for four, "
     "then two, and finally one.", False, False),
    ("## Compute backends\n\nIf eight GPUs aren't available, the router asks for four, "
     "then one.", True, True),
    # a line break inside a sentence is a space
    ("## Compute backends\n\nThe auto ladder itself tops out at four\nGPUs.", True, False),
    ("## Compute backends\n\nDispatch only considers 8× when the plan sets "
     "`explicit_wide: true`.", True, True),
    ("## Compute backends\n\nRegular VMs are available for both GPU families, so a long "
     "job always has an on-demand rung.", True, True),
    ("## Compute backends\n\nRegular VMs are available for the A100 family, so a long "
     "job there always has an on-demand rung.", False, False),
    ("## Changelog\n\n- The 8× rungs are now in the auto ladder (before this release they "
     "were explicit-intent only).", False, False),
    # a reason clause is not a procedure
    ("## Compute backends\n\nThat said, the campus cluster is preferred over GCP at every "
     "width, since a campus job costs the group nothing.", True, True),
    # "short or long": both classes
    ("## Provisioning order\n\nPreemptible VMs are tried first for every job, short or "
     "long; flex-start and on-demand follow.", True, True),
    ("## Provisioning order\n\nFlex-start is tried first for every long job; spot first "
     "for every short one.", False, False),
    # each class word owns its own text, up to the next one
    ("## Compute backends\n\nShort and long jobs differ: short jobs lead with SPOT, long "
     "jobs with FLEX_START.", False, False),
    # "becomes long past N"; "anything shorter" is the other class
    ("## Compute backends\n\nA job only becomes long once it passes 24 hours at its width; "
     "anything shorter leads with SPOT.", True, True),
    ("## Compute backends\n\nA job only becomes long once it passes 4 hours at its width; "
     "anything shorter leads with SPOT.", False, True),
    # the job of the sentence before, named by a pronoun
    ("## Compute backends\n\nA 10 h job at 4× is long. It leads with SPOT anyway.",
     True, True),
    ("## Compute backends\n\nA 10 h job at 4× is long. It leads with FLEX_START.",
     False, False),
    # a permission under a length condition is still a permission
    ("## Compute backends\n\nFor the H100 family the model can be STANDARD whenever the "
     "job is long.", True, True),
    # `key: value` lines of a plain or YAML fence state settings
    ("## Compute backends\n\n```\nshort: SPOT -> FLEX_START -> STANDARD\n"
     "long:  FLEX_START -> SPOT -> STANDARD\n```", True, True),
    ("## Compute backends\n\n```yaml\nbackends: [gcp, slurm, runpod]\n```", False, False),
    ("## Compute backends\n\n```yaml\nbackends: [gcp, runpod, slurm]\n```", True, True),
    # a transcript of a tool's output quotes text, and code in another language is code
    ("## Compute backends\n\n```text\nCLAUDE.md:4:3: RunPod → GCP on capacity misses.\n"
     "    order: RunPod before GCP\n```", False, False),
    ("## Compute backends\n\n```python\norder = 'runpod: gcp, slurm'\n```", False, False),
    # a leading cue's objects each take the cue they follow; a colon ends them
    ("## Compute backends\n\nAfter the narrowest GCP rungs and before RunPod: `campus-a100` "
     "first, then `campus-preempt`.", False, True),
    ("## Compute backends\n\nAfter RunPod and before GCP: the SLURM lanes.", True, True),
    # a condition names a wish, not the ladder; "only exists for", "also has"
    ("## Compute backends\n\nIf you were hoping for on-demand H100s: sorry, the "
     "`a3-highgpu` rungs are spot or flex-start only. On-demand only exists for the A100 "
     "machines.", False, False),
    ("## Compute backends\n\nOn-demand only exists for the H100 machines.", True, True),
    ("## Compute backends\n\nBoth families accept SPOT and flex-start; only the A100 family "
     "also has regular VMs.", False, False),
    ("> Historical: ladder v0 kept 8× as explicit-intent-only, not in the auto-ladder. That "
     "is no longer true.", False, False),
    # a "No" answers the question, not its condition
    ("## Compute backends\n\n**If a 30 h job at 8× degrades to 1×, does it get "
     "FLEX_START?**\nNo. It would run 240 h at 1×, past the 168 h limit.", False, False),
    # pairs ordered by cues are not a list in the order written
    ("## Compute backends\n\nFor long jobs, SPOT comes after STANDARD, and FLEX_START comes "
     "ahead of both.", False, False),
    ("## Compute backends\n\nFor long jobs, spot comes right after flex-start.", True, True),
    ("## Compute backends\n\nFor long jobs, on-demand comes right after flex-start.",
     False, False),
    # "it is no longer the final rung" says more; it does not retract
    ("## Compute backends\n\n- **Changed:** RunPod now sits between GCP and SLURM; it is no "
     "longer the final rung.", True, True),
    ("## Compute backends\n\nRunPod went between GCP and SLURM. That is no longer true.",
     False, False),
    # the subset before "everything else is long" is the whole class
    ("## Compute backends\n\nJobs shorter than three hours are short; everything else is "
     "long.", True, True),
    ("## Compute backends\n\nJobs shorter than four hours are short; everything else is "
     "long.", False, True),
    # "aren't there" is a miss; "width-4" is a width; "from 4× to 1×"
    ("## Compute backends\n\nIf the 8-GPU boxes aren't there, it drops straight to 2× and "
     "then 1×.", True, True),
    ("## Compute backends\n\nIf the 4-GPU boxes aren't there, it drops to 2× and then 1×.",
     False, False),
    ("## Compute backends\n\nA width-4 request that misses goes straight from 4× to 1×.",
     True, True),
    ("## Compute backends\n\nA width-4 request that misses goes straight from 4× to 2×.",
     False, False),
    # a question's answer completes it, on the answer's own line
    ("## FAQ\n\n**What widths can I ask for?**\n1, 2, 4, 8 or 16.", True, True),
    ("## FAQ\n\n**What widths can I ask for?**\n1, 2, 4 or 8.", False, True),
    ("## FAQ\n\n**Can I ask for sixteen GPUs?**\nYes. A 16× request is walked as 16× → 8× "
     "→ 4× → 2× → 1×.", True, True),
    # a closed aside ends no clause
    ("## Compute backends\n\nRegular (on-demand) VMs are available for every family on the "
     "ladder.", True, True),
    ("## H100 capacity\n\nIf spot and flex are both gone, the H100 nodes can still run "
     "on-demand.", True, True),
    # a changelog's "raised from A to B" states B
    ("## Config changes\n\n- `short_threshold_hours` raised from 4 to 5.", True, True),
    ("## Config changes\n\n- `short_threshold_hours` raised from 3 to 4.", False, True),
    ("## Config changes\n\n- `eval-70b` minimum width raised to 4.", True, True),
    ("## Config changes\n\n- `eval-70b` minimum width raised from 1 to 2.", False, False),
    # "any more" states today's state, negated
    ("## Compute backends\n\nRunPod is not the last rung any more.", True, True),
    # a lane table row: lane after lane
    ("| Lane | Partition | Tried |\n|---|---|---|\n| campus-a100 | gpu | only after "
     "campus-preempt misses |", True, False),
    # a header cell naming one model twice ("DWS flex-start") is that model's column
    ("## Compute backends\n\n| Family | Spot | DWS flex-start | On-demand |\n|---|---|---|---|"
     "\n| A100 80GB (`a2-ultragpu`) | yes | no | yes |", True, True),
    # a numbered list of models under a class's order heading
    ("### Provisioning order for a long job (one width)\n\n1. FLEX_START\n2. SPOT\n"
     "3. STANDARD", True, True),
    ("### Provisioning order for a long job (one width)\n\n1. FLEX_START\n2. STANDARD\n"
     "3. SPOT", False, False),
    # an intent's chain reaches its last width
    ("## Compute backends\n\nThe `eval-70b` chain is 8× → 4× → 2× → 1×.", True, True),
    ("## Compute backends\n\nThe `eval-70b` chain is 4× → 2×.", False, False),
    # a worked example in shorthand, and "the 1× rungs still offer FLEX_START"
    ("## Compute backends\n\n- 20 h at 4× degraded to 1× = 80 h: no FLEX_START rung at 1×.",
     True, False),
    ("## Compute backends\n\nA 25 h job at 8× that ends up on 1× runs 200 h there, and the 1× "
     "rungs still offer FLEX_START.", True, True),
    # "backstop" is not the procedure "stop"
    ("## Compute backends\n\nThe campus lanes are the backstop for when RunPod has no pods "
     "free.", True, True),
    ("## Compute backends\n\nRunPod is the backstop for when the campus lanes are full.",
     False, False),
    ("## Compute backends\n\nYou have to ask for the 8g shapes by hand.", True, False),
    # a length written at a width is a worked example
    ("## Compute backends\n\nHalf a day on 8 GPUs becomes 96 h on one GPU, so the 1× rungs "
     "have no flex-start.", True, False),
    ("## Compute backends\n\n1.5 days at 8× turns into 288 h at 1×; FLEX_START is not offered "
     "there.", False, False),
    # a table cell listing widths under a "widths tried" header
    ("| request | widths tried |\n| --- | --- |\n| 2× | 2, 4, 1 |", True, True),
    ("| request | widths tried |\n| --- | --- |\n| 4× | 4, 2, 1 |", False, False),
    ("## Compute backends\n\nOnly sub-hour jobs count as short.", True, True),
    # a family named twice is one family; a result clause restates the model
    ("## Compute backends\n\nOn-demand VMs are available only for the A100 family "
     "(`a2-ultragpu`), so a STANDARD rung always means an A100.", False, False),
    ("## Compute backends\n\nSpot VMs can back either family; only the A100 machines can "
     "also fall back to regular on-demand VMs.", False, False),
    # the cue's own clause carries its polarity
    ("## Compute backends\n\nLong jobs do not lead with SPOT: SPOT is their last resort, "
     "after FLEX_START and STANDARD.", False, False),
    ("> History: an early draft said `campus-preempt` went first.", False, False),
    # a rung taken off the ladder altogether
    ("## Compute backends\n\n`campus-preempt` is never on the ladder.", True, True),
    ("## Compute backends\n\nThe 8× rungs are not on the ladder.", True, False),
    ("## Compute backends\n\nThe router never uses RunPod for short jobs.", False, False),
    # an exception is outside the cue's objects
    ("## Compute backends\n\nGCP is preferred over every other backend except the SLURM "
     "lanes, which always go first.", True, True),
    ("## Compute backends\n\nThe router prefers GCP to everything except RunPod.", False,
     False),
    # where a width's walk ends depends on the intent the sentence names
    ("## Compute backends\n\nFor `lora-7b`, once the 2× GCP rungs miss the router moves on "
     "to `campus-a100`.", True, True),
    ("## Compute backends\n\nFor `eval-70b`, once the 2× GCP rungs miss the router moves on "
     "to `campus-a100`.", False, False),
    # a request names a width; a participle skips one
    ("## Model sizes\n\nYou can also ask for 3× in that case.", True, True),
    ("## Model sizes\n\nYou can also ask for 4× in that case.", False, False),
    ("The router degrades 8× to 2× in one step, skipping 4×.", True, True),
    # every family, however it is named, and a condition's models are not permitted
    ("Every GCP machine type on the ladder can run on-demand if spot and DWS capacity are "
     "both gone.", True, True),
    ("Regular VMs are available for both GPU families, at full price.", True, True),
    ("Spot VMs are available for both GPU families, at full price.", False, False),
    # the colon before the class word is not a lead; a model chain under a class
    ("## Compute backends\n\n> Note: long jobs never use SPOT at all.", True, True),
    ("### Long training runs\n\nLong jobs start on on-demand VMs, then flex-start, then "
     "spot.", True, True),
    ("### Long training runs\n\nLong jobs start on flex-start, then on-demand VMs, then "
     "spot.", False, False),
    ("The router calls a job long once it runs 12 hours or more at a width.", True, True),
    ("The router calls a job long once it runs 4 hours or more at a width.", False, True),
    ("## Probing runs\n\nA 0.5 h job at 8× runs 4 h at 1× and is still short there.", True,
     False),
    # an order decided at run time is not the ladder's
    ("## Compute backends\n\nThe router picks between `campus-a100` and `campus-preempt` by "
     "current queue depth.", True, True),
    ("## Compute backends\n\nThe router fires at GCP and SLURM in parallel and keeps "
     "whichever lands first.", True, True),
    ("## Compute backends\n\nGCP and SLURM jobs can run at the same time for different "
     "plans.", False, False),
    ("## Compute backends\n\nThe router never tries GCP and SLURM in parallel.", False, False),
    ("## Compute backends\n\nEvery backend on the ladder is checked before the first attempt, "
     "concurrently: GCP, SLURM and RunPod.", False, False),
    # a set of widths a request may land on is no chain
    ("## Compute backends\n\nA phase asking for 8 may land on 4, 2 or 1 GPUs when 8× "
     "misses capacity.", False, False),
    # a quota's name is not a model; what a condition leaves is not a policy
    ("## Compute backends\n\nOnly the A100 family has a STANDARD rung at all, so the regular "
     "H100 quota is irrelevant to us.", False, False),
    ("## Compute backends\n\nPast the FLEX_START maximum, on H100 only SPOT is left.", False,
     False),
    # the default walk is the auto ladder; "the default walk" is no lead
    ("## Compute backends\n\nEight-GPU boxes are outside the default walk and need a "
     "flag.", True, False),
    ("## Compute backends\n\nThe `-8g` machine types aren't in the default walk, the router "
     "only hits them if you explicitly pin width 8.", True, False),
    ("## Compute backends\n\nAs of v3 the GCP width walk stops at 2×.", True, True),
    ("## Compute backends\n\nThe GCP width walk stops at 1×.", False, False),
    ("## Compute backends\n\n`eval-70b` can degrade all the way to a single 80 GB GPU.", True,
     True),
    ("## Compute backends\n\n`eval-7b` can degrade all the way to a single A100.", False,
     False),
    # a rung taken off the ladder in its own clause; a conditioned one is another claim
    ("## Compute backends\n\nRunPod isn't in the automatic ladder at all: dispatch stops "
     "after the SLURM lanes.", True, True),
    ("## Compute backends\n\nRunPod is never tried unless GCP misses.", False, False),
    ("## Compute backends\n\nWidth one is never a GCP rung.", True, True),
    # "all three provisioning models" names them all; "a full day" is 24 h
    ("## Compute backends\n\nBoth GPU families accept all three provisioning models — spot, "
     "flex-start and regular on-demand VMs.", True, True),
    ("## Compute backends\n\nThe short/long cutoff is a full day at the chosen width.", True,
     True),
    # "Long order:" is the long class's order; a colon ends a denied model's claim
    ("## Compute backends\n\nLong order at a width: FLEX_START, then SPOT, then STANDARD.",
     True, True),
    ("## Compute backends\n\nLong order at a width: FLEX_START, then STANDARD, then SPOT.",
     False, False),
    ("## Compute backends\n\nA long job never touches spot VMs: it goes FLEX_START, then "
     "STANDARD, and that's it.", True, True),
    # "declined" is a miss; a relative clause is no procedure; "start on X" puts X first
    ("## Compute backends\n\nStart on the campus SLURM cluster, which costs nothing; the "
     "router moves a job to GCP only when both SLURM lanes have declined it.", True, True),
    # "that" is the clause before, inside the sentence
    ("## Compute backends\n\nGCP had no capacity at any width, both SLURM lanes hit their "
     "wait limits, and RunPod is what the ladder falls to after that.", False, False),
    # a review quoting the text under review
    ("> The previous wording said the short cutoff was 6 h; this PR fixes it.", False, False),
    # "all of them except X" after the intents are named
    ("## Compute backends\n\nYou have access to four intents. All of them except `eval-70b` "
     "can run at width 1.", False, False),
    ("## Compute backends\n\nYou have access to four intents. All of them except `eval-7b` "
     "can run at width 1.", True, True),
    # one family across all widths before the other; per width is right
    ("## Compute backends\n\nThe router exhausts every A100 rung, at all widths, before it "
     "tries a single H100 machine.", True, True),
    ("## Compute backends\n\nA100 is tried first at every width, then H100.", False, True),
    # each intent with its own width; "needs a full eight-GPU box" is a minimum
    ("Minimum widths: capture-7b 1, eval-7b 1, lora-7b 1, eval-70b 4.", True, True),
    ("Minimum widths: capture-7b 1, eval-7b 1, lora-7b 1, eval-70b 2.", False, False),
    ("## Compute backends\n\neval-70b never goes below two GPUs, and lora-7b never below "
     "four.", True, True),
    ("## Compute backends\n\neval-70b needs a full eight-GPU box.", True, True),
    # "removed from the automatic ladder", "only show up when the plan sets …"
    ("- v1: 8× rungs removed from the automatic ladder; request them explicitly.", True, True),
    ("## Compute backends\n\nWide rungs (8×) only show up when the plan sets `ladder: wide`.",
     True, True),
    # "with" ends a chain; a dash before "never" denies the model after it
    ("## Compute backends\n\nMachine types step down `a2-ultragpu-8g` → `a2-ultragpu-4g`, "
     "with `a3-highgpu-8g/4g` H100 rungs beside each width.", False, True),
    ("- H100 80GB: spot or flex-start — never on-demand.", False, False),
    ("- Both families take SPOT and FLEX_START; only A100 adds STANDARD.", False, False),
    ("- Both families take SPOT and FLEX_START; only H100 adds STANDARD.", True, True),
    # a playback speed is no width; the model a "first" follows leads
    ("## Compute backends\n\nWatch the videos at 1x first, then 1.5x or 2x.", False, False),
    ("## Compute backends\n\nA 10 h run at 8x is long: expect DWS first, an on-demand A100 "
     "next, and spot last.", False, False),
    # an intent by task and size; "never used automatically"; "never asks for eight GPUs"
    ("## Compute backends\n\nThe 70B eval walks 8x → 4x → 2x → 1x like everything else.",
     True, True),
    ("## Compute backends\n\nThe 70B eval walks 8x → 4x → 2x and then leaves GCP.", False,
     True),
    ("## Compute backends\n\n- RunPod is never used automatically; pass `--backend runpod` "
     "if you want it.", True, True),
    ("## Compute backends\n\nThe automatic ladder never asks for eight GPUs.", True, False),
    ("## Compute backends\n\n- ❌ Don't count on 8x from the router — it's manual-only.", True,
     False),
    ("## Compute backends\n\nGCP and SLURM are asked at the same time and whichever grants "
     "first wins.", True, True),
    # an elliptical answer is put where its question asks
    ("**Which family goes first at 2× SPOT?** The H100 one; A100s follow.", True, False),
    ("**A100 or H100 first?**\nA100, then H100.", False, True),
    ("**How narrow can eval-70b go?**\nOne GPU, like the 7b intents.", True, True),
    ("**Where is the line between short and long?**\n\nSix hours at the job's width.", True,
     False),
    ("**What does a long run lead with?**\nSpot, then flex-start, then on-demand.", True, True),
    ("**What widths can I ask for?**\n1, 2, 4 or 8.", False, True),
    ("**Which widths does the router walk?**\n4×, 2× and 1×.", False, False),
    ("## Compute backends\n\nThe router walks 4×, 2× and then 1×.", False, False),
    ("## Compute backends\n\nThe router walks 8×, 4× and 1×.", True, True),
    # a pronoun subject is the sentence before's first name; 'back in the spring' is
    # history and 'That is gone' retracts it
    ("## Compute backends\n\nRunPod used to be tried early. Now it sits between GCP and "
     "the SLURM lanes.", True, True),
    ("## Compute backends\n\nRunPod used to be tried early. Now it comes last, after the "
     "SLURM lanes.", False, False),
    ("Back in the spring we pointed everything at the campus cluster first. That is gone: "
     "today GCP is tried first, the SLURM lanes second, and RunPod last.", False, False),
    # the FLEX_START maximum in more words
    ("Flex-start VMs are stopped after seven days.", False, True),
    ("Flex-start VMs are stopped after three days.", True, False),
    ("Anything over three days is too long for DWS.", True, False),
    ("DWS has a 3-day limit, so multi-day jobs never get a DWS rung.", True, False),
    # a relative clause has its own polarity; 'only F offers it' makes the model F's alone
    ("A 30 h job at 8x has no FLEX_START rung at 1x, where it would run 240 h, over the "
     "168 h cap.", False, True),
    ("STANDARD means regular on-demand VMs, and only the A100 family offers it.", False,
     False),
    ("STANDARD means regular on-demand VMs, and only the H100 family offers it.", True, True),
    ("## Compute backends\n\nRegular (on-demand) VMs are available for both GPU types.", True,
     True),
    # the rungs after GCP ask for the intent's minimum width, as the planner plans them
    ("## Compute backends\n\nSLURM and RunPod rungs ask for the wide width, e.g. 8 GPUs for "
     "an 8x request.", True, True),
    ("## Compute backends\n\nWhen eval-70b reaches the SLURM lanes it asks for a single GPU.",
     True, True),
    ("## Compute backends\n\nThe SLURM rungs for eval-70b ask for 2 GPUs.", False, False),
    ("## Compute backends\n\nThe SLURM and RunPod rungs ask for the minimum width.", False,
     False),
    # a quote the text corrects claims nothing; the correction does
    ("> GCP → RunPod → SLURM\n\nThis line was wrong; fixed to GCP → SLURM → RunPod.", False,
     False),
    ("> GCP → RunPod → SLURM\n\nThis line was wrong; fixed to GCP → RunPod → SLURM.", True,
     True),
    ("> H100 is preferred over A100\n\nThat's backwards: the router tries A100 before H100 "
     "at one width.", False, True),
    ("> GCP → RunPod → SLURM\n\nYes, that is the order.", True, True),
    ("The old prompt said:\n\n> GCP → RunPod → SLURM", False, False),
    # 'nobody' negates; a bound is no job's length; a lane's capacity is no rung
    ("## Compute backends\n\nH100 shapes stay on spot and DWS, so that nobody pays on-demand "
     "H100 prices.", False, False),
    ("We check the flex-start limit at every width, because a job that fits in a week at 8× "
     "can blow past it at 1×.", False, True),
    ("Take a 20 h job at 4×. It is long at every width: 40 h at 2×, 80 h at 1×.", False,
     False),
    ("## SLURM\n\nThe preempt lane takes at most four GPUs, so we only use it once the gpu "
     "partition's window has passed.", False, True),
    ("If you see a job in the `preempt` partition queue, `campus-a100` was already tried.",
     False, False),
    # a history note's subject carries to the pronoun that turns to today
    ("## Compute backends\n\nThe flex-start cap used to be 3 days; it was raised to 7 days.",
     False, True),
    ("## Compute backends\n\nThe flex-start cap used to be 7 days; it was cut to 24 hours.",
     True, True),
    ("## Compute backends\n\nH100 used to be limited to spot and flex-start. Since the quota "
     "bump it also has on-demand (STANDARD) rungs.", True, True),
    ("## Compute backends\n\nH100 was originally the fallback; since the a3 quota landed it is "
     "the preferred family.", True, False),
    ("## SLURM\n\nTwo lanes, tried in this order: campus-preempt (partition preempt), then "
     "campus-a100 (partition gpu).", True, False),
    ("## Compute backends\n\nIf you see an `a2-ultragpu-8g` request in an automatic run, it "
     "means someone bypassed the ladder: the auto-ladder never includes 8×.", True, True),
    # a glossary entry's term is the subject of its definition
    ("## Compute backends\n\n**a2-ultragpu** — the A100 family. SPOT and FLEX_START only; it "
     "never runs on-demand.", True, True),
    ("## Compute backends\n\n**a3-highgpu** — the H100 family. SPOT and FLEX_START only; it "
     "never runs on-demand.", False, False),
    ("**Long job** — a job whose length at the current width is 4 h or more. It leads with "
     "SPOT.", True, True),
    # bare widths under a width key, a walk that grows, shapes named by their 'g'
    ("- 4x ladder: 4 -> 1.", True, True),
    ("- 4x ladder: 4 -> 2 -> 1.", False, False),
    ("## Compute backends\n\nGCP starts every request at 1x and grows toward the requested "
     "width whenever capacity allows.", True, True),
    ("## Compute backends\n\nThe router log shows attempts at the 4g machine type, then 2g, "
     "then 1g.", False, False),
    ("## Compute backends\n\nThe router log shows attempts at the 4g machine type, then 1g.",
     True, True),
    # a lane's partition written after its name; an FAQ's "how long"; a threshold's
    # pronoun after a history note
    ("Once GCP is exhausted the router submits to campus-a100, which lives on the `a100` "
     "partition.", True, True),
    ("Do not pass `--exclusive` on the `preempt` partition unless you need the node.", False,
     False),
    ("**Q: How long does the router wait on campus-a100 before moving on?**\nA: About two "
     "hours.", True, True),
    ("## Compute backends\n\nThe short threshold started out at 2 h. It was raised last "
     "quarter, and today it sits at four hours.", False, True),
    # a worked-example table: the widest row is the request, the others follow it
    ("| Width | Length | Short/long | Lead |\n|---|---|---|---|\n| 4x | 5 h | long | "
     "FLEX_START |\n| 2x | 10 h | long | FLEX_START |\n| 1x | 20 h | long | FLEX_START |",
     False, True),
    ("| Width | Length | Short/long | Lead |\n|---|---|---|---|\n| 4x | 5 h | long | "
     "FLEX_START |\n| 2x | 10 h | long | FLEX_START |\n| 1x | 10 h | long | FLEX_START |",
     True, True),
    ("| GPUs | time |\n|---|---|\n| 4x | 2.5 h |\n| 1x | 9 h |", False, False),
    # FLEX_START's maximum: a cap named after the sentence about it, an exclusion
    # written as an instruction, "is there a cap?", a longer job that still gets it
    ("## Compute backends\n\nFlex-start has a maximum run duration, so the router checks "
     "each width before it offers a FLEX_START rung there. The cap is three days.", True,
     False),
    ("## Compute backends\n\nIf the length at a width is more than 48 h, leave FLEX_START out "
     "at that width.", True, True),
    ("**Q: Is there a runtime cap on FLEX_START?**\nA: No, a DWS machine runs until your job "
     "exits.", True, True),
    ("## Compute backends\n\nA job longer than 168 h at a width still gets FLEX_START there.",
     True, True),
    ("## Compute backends\n\nA job longer than 168 h at a width gets no FLEX_START rung there.",
     False, True),
    # true statements in shapes that read wrong before: "the only X are F", "leads
    # with X, not Y, where …", a lane's relative clause, a cue across another length
    ("## Compute backends\n\nThe only on-demand GPUs the router ever asks GCP for are A100s.",
     False, False),
    ("## Compute backends\n\nThe only on-demand GPUs the router ever asks GCP for are H100s.",
     True, True),
    ("A long job leads with flex-start (DWS), not spot VMs, at any width where flex-start is "
     "offered.", False, False),
    ("A long job leads with spot, not flex-start.", True, True),
    ("Runbook: if campus-a100 can't start the job within 30 minutes, the router moves on to "
     "campus-preempt, which waits up to 120 minutes and takes at most four GPUs.", False, False),
    ("**Q:** Is a job that takes exactly four hours short?\n**A:** No. Short is strictly below "
     "4 h, so four hours on the nose is long.", False, True),
    # a lane said to come straight before RunPod skips the lanes after it
    ("## Compute backends\n\nIf GCP can't place the job, the fallback is campus-a100 first, "
     "then RunPod, with campus-preempt as the final safety net.", True, True),
    ("| Step | Backend |\n|---|---|\n| 1 | GCP |\n| 2 | SLURM (campus-a100, campus-preempt) |"
     "\n| 3 | RunPod |", False, False),
    # a maximum restated in other units is a claim of its own; "rungs are dropped when
    # the length exceeds N" states the maximum
    ("## Compute backends\n\nFLEX_START rungs are dropped at a width when the length there "
     "exceeds 168 h, i.e. five days.", True, True),
    ("## Compute backends\n\nFLEX_START rungs are dropped at a width when the length there "
     "exceeds 168 h, i.e. seven days.", False, True),
    # "the H100 box leads": the family before a lead verb, its noun between
    ("## Compute backends\n\nA100 first, then H100, except at 8×, where the H100 box leads.",
     True, True),
    ("## Compute backends\n\nAt every width the A100 box leads.", False, True),
    # the unit of the length class
    ('"Short" is measured in GPU-hours: a job is short when width × hours is under 4, and short '
     'jobs lead with SPOT.', True, True),
    ('"Short" is not measured in GPU-hours: a job is short when its length at that width is '
     'under 4 h.', False, True),
    # how many SLURM lanes there are, from the config
    ("## SLURM\n\nThere is a single SLURM lane, campus-a100; nothing else on the campus "
     "cluster is used by the router.", True, True),
    ("## SLURM\n\nThe router tries the two campus lanes before RunPod.", False, False),
    ("## SLURM\n\nSubmit one SLURM job per lane at a time.", False, False),
    # one decision for every width, however it is worded
    ("The router looks at the job's length at the requested width, picks the lead once, and "
     "keeps it at every narrower width.", True, True),
    ("The flex-start cap is checked once, against the job's length at the requested width; "
     "narrower widths inherit that decision.", True, True),
    ("We check the flex-start limit at every width rather than once, because a job can blow "
     "past it at 1×.", False, False),
    # the worked job carried to a sentence about its FLEX_START rung at a width
    ("## Compute backends\n\nA run that is 30 h at 4× is 60 h at 2× and 120 h at 1×. At 1× "
     "that is past the flex-start limit, so the 1× rungs have no FLEX_START.", True, False),
    ("## Compute backends\n\n1.5 days at 8× turns into 288 h at 1×; FLEX_START is still "
     "offered there.", True, True),
    ("## Compute backends\n\n1.5 days at 8× turns into 288 h at 1×; FLEX_START is no longer "
     "offered there.", False, False),
    # what comes straight after a miss, as the planner plans it per intent
    ("## Compute backends\n\nA capacity miss on the 2× rungs is enough to send a capture job "
     "to RunPod.", True, True),
    ("## Compute backends\n\nThe router checks RunPod as soon as the widest GCP rung misses.",
     True, True),
    ("## Compute backends\n\nThe SLURM lanes are tried right after the 1× GCP rungs miss.",
     False, False),
    ("eval-70b: 4x -> 2x on GCP, then the SLURM lanes at 2 GPUs, then RunPod at 2 GPUs.",
     False, False),
    # an instruction to request a model on a family permits it there
    ("You must request STANDARD capacity for a3-highgpu-8g when both SPOT and DWS miss at 8x.",
     True, True),
    ("You may request STANDARD capacity for a2-ultragpu-8g when both SPOT and DWS miss.",
     False, False),
    # "first" then a verb of trying names what is tried first
    ("## Compute backends\n\nThe router first works through the SLURM lanes, and only when "
     "both have timed out does it look at GCP.", True, True),
    ("## Compute backends\n\nThe router first tries GCP at every width.", False, False),
    # a list's lead-in states the worked job its items follow
    ("## Compute backends\n\nWorked example, a 1 h job at 4×:\n\n- 4×: 1 h, short, SPOT lead."
     "\n- 2×: 2 h, short, "
     "SPOT lead.\n- 1×: 4 h, long, FLEX_START lead.", False, True),
    ("## Compute backends\n\nWorked example, a 1 h job at 4×:\n\n- 4×: 1 h, short, SPOT lead."
     "\n- 2×: 2 h, short, "
     "SPOT lead.\n- 1×: 4 h, short, SPOT lead.", True, False),
    # a changed value states the new one, in the old one's unit when it has none
    ("## Compute backends\n\nThe short cutoff was raised from four hours to twelve last "
     "quarter.", True, True),
    ("## Compute backends\n\nThe short cutoff was raised from two hours to four.", False,
     True),
    # RunPod's GPU ids are the config's
    ("RunPod GPU types: `NVIDIA A100 80GB PCIe`, `NVIDIA A100-SXM4-80GB`, "
     "`NVIDIA H100 80GB HBM3`.", False, False),
    ("RunPod GPU types: `NVIDIA A100 80GB PCIe`, `NVIDIA A100-SXM4-80GB`, `NVIDIA H100 PCIe`.",
     True, True),
    ("## Compute backends\n\nWe rent an NVIDIA GeForce RTX 4090 pod on RunPod for the demo.",
     False, False),
    # a pronoun that is compared with a lane is the lane named before it
    ("### Invariants\n\ncampus-preempt never takes more than 4 GPUs,\nand it is never tried "
     "ahead of campus-a100.", False, True),
    # after a clause that compares two backends, "first" places one against the other
    ("Never plan on a RunPod pod showing up ahead of SLURM: the campus lanes always come "
     "first.", False, False),
    ("GCP is preferred over every other backend except the SLURM lanes, which always go "
     "first.", True, True),
    # a fragment answer names what comes before the next sentence's "it"
    ("**Q: When does a job land on RunPod?**\nA: Only after GCP and the SLURM lanes are "
     "exhausted. It is the final backend in the ladder.", False, False),
    # every condition joined on counts: "once GCP has missed and campus is full"
    ("## Compute backends\n\nThe router only gets to RunPod once GCP has missed and campus "
     "is full.", False, False),
    ("## Compute backends\n\nThe router goes to RunPod once GCP has missed.", True, True),
    # settings, one per line, in a paragraph
    ("Allowed provisioning per machine family:\na2-ultragpu-*: SPOT, FLEX_START, STANDARD\n"
     "a3-highgpu-*: SPOT, FLEX_START", False, False),
    ("Router settings excerpt:\nlead_long: FLEX_START\nflex_start_max_run: 7 days (120 h)\n"
     "short_threshold: 4h", True, True),
    ("## Width degradation\n\nOn capacity misses the router halves the width until it runs "
     "out of GCP\noptions: 8× → 4× → 1×.", True, True),
    # "any explicit intent" is not every intent
    ("8× is part of the automatic ladder. You don't need any explicit intent to get an "
     "8-GPU box.", False, True),
    # a cap is not the job's length
    ("Don't design a phase that needs ten days at 1× and expect DWS to carry it: flex-start "
     "caps a VM at seven days, so the router won't offer FLEX_START for it at 1×.", False,
     True),
    # where a model leads is not what leads the width chain
    ("#gpu-help\n> my eval is ~90 min at 1x, does it go spot?\n\nyep. under 4 h at that "
     "width, so spot leads at 1x.", False, False),
    # a follow-up sentence is about the worked job before it, at the width it ran at
    ("## Compute backends\n\nA 2 h job at 4× runs 4 h at 2×. That's right at the line, so "
     "it's still short and SPOT leads there.", True, False),
    ("## Compute backends\n\nA 5 h job at 8× that degrades to 4× runs 10 h there; at that "
     "length it leads with FLEX_START.", False, True),
    ("## Compute backends\n\nA 30 h job at 8× runs 240 h at 1×. That's inside the "
     "flex-start window, so FLEX_START leads at 1×.", True, True),
    ("A job that takes 3 h at 8× takes 6 h at 4×. It is short at 8× (SPOT first) and long at "
     "4× (FLEX_START first).", False, False),
    # the class, lead or cap judged at the request only (the ladder judges each width)
    ("The cap is checked against the job's length at the width you originally requested, "
     "not the narrower width it degrades to.", True, True),
    ("Short means under 4 h at the width you requested; the router doesn't recompute it "
     "when it narrows the job.", True, True),
    ("The lead model is picked once, from the job's length at the requested width, and "
     "then reused for every narrower rung.", True, True),
    ("Length is measured at each width, not once at the requested width.", False, False),
    ("The short cutoff is 4 h, and it's measured at the width being tried, not at the width "
     "you asked for.", False, True),
    # the threshold in GPU-hours is another unit
    ("The short/long cutoff is 4 GPU-hours, measured at the width being tried.", True, True),
    # a model written as the config names it, or by a GCP-only name, is this ladder's
    ("### H100 notes\n\nDynamic Workload Scheduler is not available for the H100 family.",
     True, True),
    ("### H100 nodes\n\nH100 is FLEX_START only: no spot VMs and no on-demand.", True, True),
    ("### H100 nodes\n\nH100 is FLEX_START/SPOT only: no on-demand.", False, False),
    ("### Costs\n\nUse on-demand H100s for the critical path; spot for sweeps.", False,
     False),
    # the machine series written as words
    ("The A3 highgpu machines allow only STANDARD and SPOT.", True, True),
    # a config-like fence with no info string
    ("```\na2-ultragpu-8g: SPOT, FLEX_START, STANDARD\na3-highgpu-8g:  SPOT, FLEX_START, "
     "STANDARD\n```", True, True),
    ("```\na3-highgpu-8g:  SPOT, FLEX_START\n```", False, False),
    # a floor stated as where the halving stops
    ("## Compute backends\n\nGCP halves the width on each capacity miss and stops at 2×.", True,
     True),
    ("## Compute backends\n\nGCP halves the width on each capacity miss and stops at 1×.",
     False, False),
    # "it" is the request the sentence before names by its width
    ("### Width on GCP\n\nAllowed widths are 1, 2, 4 and 8.\nA width-4 request tries 4× first. "
     "On a miss it drops straight to 1×.", True, True),
    # "never degrades it below 2×" is the floor of what "it" is, not the direction
    ("## 70B evals\n\n`eval-70b` needs two GPUs, so its minimum width is 2. The router never "
     "degrades it below 2×.", False, False),
    # a "Don't" column of a do/don't table states what is not so
    ("## Compute backends\n\n| ✅ Do | ❌ Don't |\n|---|---|\n| Assume RunPod is the final "
     "fallback | Assume RunPod is tried before the campus cluster |", False, False),
    ("## Compute backends\n\n| ✅ Do | ❌ Don't |\n|---|---|\n| Assume RunPod is tried before "
     "the campus cluster | Assume RunPod is the final fallback |", True, True),
    # a chat emoji ends its sentence, and "it's" is the subject named before
    ("## Compute backends\n\nnope, RunPod is never ahead of SLURM 🙂 it's dead last, after GCP "
     "and both campus lanes.", False, False),
    ("## Compute backends\n\nRunPod is the paid fallback. It's tried before the SLURM lanes.",
     True, True),
    # a name inside a trailing condition is not the next sentence's "it"
    ("## Compute backends\n\nthat only happens when GCP and both campus lanes came up empty.\n"
     "it's last in the ladder.", False, False),
    ("## Compute backends\n\nIf you see a RunPod pod in the log, GCP and both lanes were "
     "exhausted. It is never a first choice.", False, False),
    # a model right before "first" is what is first
    ("## Compute backends\n\nPlan for a 90-minute `eval-7b` run at 1× to try spot first.",
     False, False),
    # the clause before a colon has its own polarity
    ("The lead is decided per width, not once per job: a job can be short at 8× and long at "
     "1×, so it leads with SPOT at 8× and with FLEX_START at 1×.", False, True),
    # "below that threshold" points back at the length before it
    ("Why 4 h matters: below that threshold the job is short at that width and leads with "
     "spot.", False, False),
    ("Why 6 h matters: below that threshold the job is short at that width.", True, False),
    # a yes/no question asks its point, not its premise
    ("**Q:** Can the ladder jump from 8× straight to 2×?\n**A:** No. It halves: 8×, 4×, 2×, "
     "1×.", False, True),
    ("**Q:** Does an 8× `capture-7b` job get an 8-GPU pod on RunPod?\n**A:** No. RunPod rungs "
     "ask for the minimum width.", False, False),
    # an agent prompt's own tags (<routing> … </routing>) do not hide the text inside
    ("<routing>\norder: RunPod → GCP → SLURM\n</routing>", True, True),
    ('<rules priority="high">\norder: GCP → SLURM → RunPod\n</rules>', False, False),
    ("<provisioning>\nH100: SPOT, FLEX_START, STANDARD\n</provisioning>", True, True),
    # HTML's own block keeps its meaning: not prose
    ("<div>\nRunPod → GCP → SLURM\n</div>", False, False),
    # a negation after the model: "so FLEX_START is not offered at 1×"
    ("A 25 h job at 4× is 100 h at 1×, so FLEX_START is not offered at 1×.", True, False),
    ("A 50 h job at 4× is 200 h at 1×, so FLEX_START is not offered at 1×.", False, False),
    # "Its rungs" are the rungs of the backend named before
    ("## RunPod\n\nRunPod comes after GCP and both SLURM lanes. Its rungs ask for the full "
     "requested width.", True, True),
    # a history that turns to today with a pronoun: today's "it" is the history's subject
    ("## Compute backends\n\n8× used to be in the auto-ladder, but now it's opt-in only.",
     True, False),
    ("## Compute backends\n\n8× used to be opt-in, but now it's part of the auto ladder.",
     False, True),
    # a lane named by its partition and "one"; "the first one … is X"
    ("## SLURM\n\nThe campus cluster has two lanes. The preempt one is tried first.", True,
     False),
    ("At each width the H100 rung comes before the A100 one.", True, False),
    ("## Compute backends\n\nThe first one it tries is RunPod.", True, True),
    # a field's key, then its rule: "`width`: must be one of …"
    ("## Request fields\n\n- `width`: must be one of 1, 2, 4, 6, 8.", True, True),
    ("## Request fields\n\n- `width`: must be one of 1, 2, 4, 8.", False, True),
    # a length-lead table's rows: "| 4 h or more | STANDARD |" under "| length | lead |"
    ("| job length at that width | lead model |\n|---|---|\n| under 4 h | SPOT |\n"
     "| 4 h or more | STANDARD |", True, True),
    ("| Length at width | Lead |\n|---|---|\n| < 4 h | SPOT |\n| ≥ 4 h | FLEX_START |", False,
     True),
    ("| Benchmark | Hours | First result |\n|---|---|---|\n| resnet | 3 h | SPOT was fine |",
     False, False),
    # a list item under a lead-in about RunPod's GPU types is one of them
    ("RunPod is last, after GCP and SLURM. GPU types it may ask for (RunPod ids):\n\n"
     "- `NVIDIA A100 80GB PCIe`\n- `NVIDIA H100 PCIe`", True, True),
    ("RunPod is last, after GCP and SLURM. GPU types it may ask for (RunPod ids):\n\n"
     "- `NVIDIA A100 80GB PCIe`\n- `NVIDIA H100 80GB HBM3`", False, False),
    # "never falls through to RunPod" takes it off the ladder
    ("## Compute backends\n\nStop there: the router never falls through to paid cloud.", True,
     True),
    ("## Compute backends\n\nThe router never falls through to RunPod before both lanes "
     "miss.", False, False),
    # a worked table whose length column holds bare numbers of hours
    ("1.5 h at 8×, row by row:\n\n| Width | Hours there | Class | Lead |\n|---|---|---|---|\n"
     "| 8× | 1.5 | short | SPOT |\n| 4× | 3 | short | SPOT |\n| 2× | 6 | short | SPOT |", True,
     True),
    ("1.5 h at 8×, row by row:\n\n| Width | Hours there | Class | Lead |\n|---|---|---|---|\n"
     "| 8× | 1.5 | short | SPOT |\n| 4× | 3 | short | SPOT |\n| 2× | 6 | long | FLEX_START |",
     False, False),
    # an intent's minimum width as a list item under a lead-in that names them
    ("Intents and their minimum widths:\n\n- capture-7b: 1\n- eval-70b: 1", True, True),
    ("Intents and their minimum widths:\n\n- capture-7b: 1\n- eval-70b: 2", False, False),
    # a section about one intent is the subject of its chains
    ("## eval-70b\n\nOn GCP an 8× request still goes 8× → 4× → 2× → 1× like the 7B intents.",
     True, True),
    ("## eval-70b\n\nOn GCP an 8× request goes 8× → 4× → 2×.", False, False),
    # how many backends the ladder has
    ("Only two backends are in the ladder today: GCP and RunPod.", True, True),
    ("## Compute backends\n\nThe router knows three backends: GCP, the campus SLURM cluster "
     "and RunPod.", False, False),
    ("## Compute backends\n\nTwo backends need a VPN: the campus cluster and GCP.", False,
     False),
    ("## Compute backends\n\nIt falls back to RunPod, which is the one backend that bills "
     "real dollars.", False, False),
    ("## Ledger\n\nThe ledger has two backends with the same semantics. Dispatch on GCP "
     "records to both.", False, False),
    # rank comparatives
    ("## Compute backends\n\nSLURM ranks above GCP in the ladder.", True, True),
    ("## Compute backends\n\nSLURM ranks below GCP and above RunPod.", False, False),
    ("## Compute backends\n\nRunPod ranks above SLURM in the ladder.", True, True),
    # where a request of one width starts, from the planner (changed ladder: widest 4)
    ("### Width-8 requests\n\nA width-8 request starts at 4× unless the plan opts in.",
     True, True),
    ("### Width-4 requests\n\nA width-4 request starts at 2× unless the plan opts in.",
     True, True),
    ("### Width-4 requests\n\nA width-4 request starts at 4×.", False, False),
    ("## Compute backends\n\nThe walk starts at 1× and widens on a miss.", True, True),
    # an FAQ's elliptical answer to "what's the longest …" is a maximum
    ("Onboarding FAQ\nQ: What's the longest job FLEX_START will take at one width?\nA: Three "
     "days.", True, False),
    ("Q: What's the longest a flex-start VM can run?\nA: Seven days.", False, True),
    # an answer to "which … does the router try first" is what goes first
    ("Router FAQ\nQ: Which family does the router try first at 4× spot?\nA: H100.", True,
     False),
    # FLEX_START's maximum written as a hold time or a setting
    ("DWS VMs can be held for up to 30 days.", True, True),
    ("- flex max: 168 h at the width being tried", False, True),
    # an onboarding procedure is not the backend order
    ("## Onboarding: compute accounts\n\n1. Request a campus cluster account through the IT "
     "form.\n2. Ask in #compute to be added to the GCP project.\n3. RunPod access is granted "
     "by the team lead.", False, False),
    # real READMEs: a name holding 7x, 'automatically' about code, model widths, cluster sizes
    ('This is enabled by default in the advanced blueprint '
     '(`gke-tpu-7x-advanced.yaml`).', False, False),
    ('All code will run just fine on even a single GPU by omitting `torchrun` (code '
     'will automatically switch to gradient accumulation).', False, False),
    ('Wider EqM (width 128, vs CPU 64-wide), trained on GPU, tightens the CPU maze '
     'rung.', False, False),
    ('You should be able to run the exact same YAML on 8 or 16 or 256 GPUs and get '
     'the same results.', False, False),
    ('## Compute backends\n\nThe GCP widths go 16×, 8×, 4×, 2×, 1× on capacity '
     'misses.', True, True),
    # prohibited statements, "never skipped before", a denied width, a comparative
    # beside the cap, a section's one name as its subject
    ('Do not:\n\n- assume preemptible capacity is H100-only; a2-ultragpu has '
     'SPOT rungs too\n- expect STANDARD on a3-highgpu', False, False),
    ('## Compute backends\n\nDo not:\n\n- expect the SLURM lanes to be tried '
     'before GCP', False, False),
    ("| Do | Don't |\n| --- | --- |\n| Expect a 2 h job at its width to go to "
     "spot VMs first. | Don't expect a 10 h job to lead with SPOT. |", False, False),
    ("| Do | Don't |\n| --- | --- |\n| Expect a3-highgpu as SPOT or FLEX_START. "
     '| Look for an on-demand H100 rung; there is none. |', False, False),
    ('## Compute backends\n\nSLURM is never skipped before RunPod.', False, False),
    ('## Compute backends\n\nThere is no 16x and no 3x: a width of 6 is '
     'invalid, so pick 4 or 8.', False, False),
    ('```yaml\nflex_start_max_run_hours: 168   # 7 days; longer jobs get no '
     'FLEX_START rung at that width\n```', False, True),
    ('### campus-preempt\n\n- partition `preempt`, max width 4\n- waits up to '
     '120 min, and is tried after campus-a100', False, True),
    ('### eval-7b\n\n- never below 2x', True, True),
    ('### a3-highgpu-4g\n\n- regular on-demand VMs: allowed when DWS has no '
     'capacity', True, True),
    ('## Intents: eval-70b\n\n`eval-70b` has minimum width 2. The 7B intents '
     'have minimum width 1.', False, False),
    ('## Compute backends\n\nDo not:\n\n- expect GCP to be tried before the SLURM '
     'lanes', True, True),
    # a clause after a colon is the family's own; a config line without its comment;
    # 'no' quantifies its noun, not the next predicate
    ('## H100 provisioning\n\n`a3-highgpu-*` is SPOT and FLEX_START only. It is '
     'never STANDARD: there is no on-demand H100 rung anywhere in the ladder.',
     False, False),
    ('Provisioning, per family:\n\n```yaml\na2-ultragpu: [SPOT, FLEX_START, '
     'STANDARD]\na3-highgpu: [SPOT, FLEX_START]   # never STANDARD on H100\n```',
     False, False),
    ('## Compute backends\n\nA 100 h job at 8x narrowed to 4x is a 200 h job, '
     'so 4x has no FLEX_START rungs and leads with on-demand A100 instead.', False, True),
    # a request said to try a wider width; rows of bare widths under a widths header
    ('## Compute backends\n\nA 4-GPU request first checks whether an 8-GPU box '
     'is free and takes it; otherwise it tries 4x, then 2x, then 1x.', True, True),
    ('## Compute backends\n\nA job that asked for 2 GPUs tries 4x next if 2x '
     'misses.', True, True),
    ('## Compute backends\n\nA 4-GPU request tries 4x, then 2x, then 1x.', False, False),
    ('## Compute backends\n\n| requested | widths walked on GCP |\n| --- | --- '
     '|\n| 8 | 8, 4, 1 |', True, True),
    ('## Compute backends\n\n| requested | widths walked on GCP |\n| --- | --- '
     '|\n| 8 | 8, 4, 2, 1 |\n| 2 | 2, 1 |', False, True),
    # a time after 'after' orders nothing
    ('## Compute backends\n\nThe preempt lane is the patient one: '
     'campus-preempt waits up to two hours, while campus-a100 gives up after '
     'half an hour and hands over to campus-preempt.', False, False),
    # a length compared with the threshold, a coordinated group, a proposal, a request table
    ('## Compute backends\n\nSince 5 h is over the short threshold, the 2× attempt '
     'opened with FLEX_START.', False, True),
    ('## Compute backends\n\nWhen a long job is over 168 h at some width, that width '
     'loses its FLEX_START rungs.', False, False),
    ('* At 1x: 6 h, over four hours, FLEX_START first, with SPOT as the last GCP '
     'option at that width.', False, False),
    ('## Compute backends\n\nA request for 8 GPUs tries `a2-ultragpu-8g` and '
     '`a3-highgpu-8g` first.', False, True),
    ('## Compute backends\n\nThe router tries the SLURM lanes and RunPod first, and '
     'only asks GCP when both are full.', True, True),
    ('## Compute backends\n\nRunPod kept its old role: it was the last rung before and '
     'it is the last rung now.', False, False),
    ('## Compute backends\n\nWe once discussed putting the preempt partition first. It '
     'stayed second: the router tries `campus-a100` before `campus-preempt`.', False, True),
    ('## Compute backends\n\nUntil the width-aware change, 8-GPU machines were only '
     'reachable through an explicit intent.', False, False),
    ('## Compute backends\n\n| requested | widths tried, in order |\n|---|---|\n| 4x | '
     '8x, 4x, 2x, 1x |', True, True),
    ('## Compute backends\n\n| requested | widths tried, in order |\n|---|---|\n| 4x | '
     '4x, 2x, 1x |', False, False),
    ('## SLURM\n\nThe router tries `campus-a100` (partition `gpu`) before '
     "`campus-preempt`, and preempt's lane admits 4 GPUs at most.", False, True),
    # a class right after its worked job is the job's own; "there" is the width just named
    ("## Compute backends\n\nIf all of 8× misses, the phase is 4 h at 4×, which is long, "
     "so FLEX_START leads there.", False, True),
    ("## Compute backends\n\nA 2 h phase at 2× is short at 2× and 4 h at 1×, which is "
     "long, so FLEX_START leads at 1×.", False, True),
    # a model that only one family offers
    ("## Compute backends\n\nThe H100 has no on-demand rung, so at STANDARD only the A100 "
     "is tried.", False, False),
    ("## Compute backends\n\nThe router only offers on-demand for the A100 family.",
     False, False),
    ("## Compute backends\n\nThe router only offers on-demand for the H100 family.",
     True, True),
    ("## Compute backends\n\nH100 rungs only ever come as spot or flex.", False, False),
    ("## Compute backends\n\nH100 rungs only ever come as spot.", True, True),
    # a changelog's fix names what was wrong
    ("## Changelog\n\n- Fixed the ladder table that showed H100 ahead of A100.", False, False),
    # the widest machine a family has
    ("## Compute backends\n\nH100 nodes top out at 4x.", True, False),
    ("## Compute backends\n\nH100 nodes top out at 8x.", False, True),
]


@pytest.mark.parametrize(("text", "packaged", "changed"), FOLLOWS,
                         ids=[t[:40] for t, _, _ in FOLLOWS])
def test_expected_claims_follow_the_ladder_config(tmp_path: Path, text: str, packaged: bool,
                                                  changed: bool) -> None:
    rules = {"ladder-drift"}
    assert bool(lint(text, rules=rules)) == packaged
    assert bool(lint(text, rules=rules, ladder=changed_ladder(tmp_path))) == changed


# (statement, flagged under the packaged ladder, flagged with the lane and family
# facts changed): a lane's partition, widest allocation and wait, and how the
# families are named, all come from the config
LANE_FACTS = [
    # a clause after a semicolon that opens with its verb has the clause before's subject
    ("What happens after a full GCP miss:\n\n1. The router submits to `campus-a100`, "
     "partition `gpu`; waits up to 30 min.\n2. Then `campus-preempt`, partition `preempt`; "
     "waits up to 30 min.", True, True),
    ("What happens after a full GCP miss:\n\n1. The router submits to `campus-a100`, "
     "partition `gpu`; waits up to 30 min.\n2. Then `campus-preempt`, partition `preempt`; "
     "waits up to 120 min.", False, True),
    ("- `campus-a100`: partition `gpu`, up to 8 GPUs, waits 30 min", False, True),
    ("- `campus-a100`: partition `a100`, up to 8 GPUs, waits 30 min", True, True),
    ("- `campus-a100`: partition `a100`, up to 4 GPUs, waits 45 min", True, False),
    ("The router waits up to two hours on `campus-a100` before moving on to "
     "`campus-preempt`.", True, True),
    ("`campus-preempt` is tried after `campus-a100`, and the router gives it two hours "
     "before falling through to RunPod.", False, False),
    ("| Lane | Partition | Max width | Max wait |\n|---|---|---|---|\n"
     "| campus-a100 | gpu | 8 | 30 min |", False, True),
    ("| Lane | Partition | Max width | Max wait |\n|---|---|---|---|\n"
     "| campus-a100 | a100 | 4 | 45 min |", True, False),
    ("## Compute backends\n\nThe H100 family uses `a3-highgpu-{width}g` machines.", False,
     True),
    ("## Compute backends\n\nThe H100 family uses `a3-megagpu-{width}g` machines.", True,
     False),
    ("## Compute backends\n\n`a2-ultragpu` machines carry NVIDIA A100 40GB cards.", True,
     True),
    ("## Compute backends\n\nThe A100 family is `a2-highgpu-{w}g`.", True, True),
]


@pytest.mark.parametrize(("text", "packaged", "changed"), LANE_FACTS,
                         ids=[t[:40] for t, _, _ in LANE_FACTS])
def test_lane_and_family_facts_follow_the_config(tmp_path: Path, text: str, packaged: bool,
                                                 changed: bool) -> None:
    ladder = PACKAGED.replace("partition: gpu", "partition: a100")
    ladder = ladder.replace("    max_width: 8\n    max_wait_minutes: 30",
                            "    max_width: 4\n    max_wait_minutes: 45")
    ladder = ladder.replace("a3-highgpu-{width}g", "a3-megagpu-{width}g")
    assert ladder.count("a3-megagpu") == 1 and "max_wait_minutes: 45" in ladder
    path = tmp_path / "ladder.yaml"
    path.write_text(ladder, encoding="utf-8")
    rules = {"ladder-drift"}
    assert bool(lint(text, rules=rules)) == packaged
    assert bool(lint(text, rules=rules, ladder=path)) == changed


# (statement, flagged under the packaged ladder, flagged with eval-70b's RunPod
# GPU types reversed): the order of an intent's pod types comes from its config
POD_ORDER = [
    ("## RunPod\n\neval-70b asks RunPod for an H100 80GB HBM3 first, then an "
     "A100-SXM4-80GB.", False, True),
    ("eval-70b is the one intent that asks RunPod for H100 first: `NVIDIA H100 80GB HBM3`, "
     "then `NVIDIA A100-SXM4-80GB`.", False, True),
    ("### eval-70b on RunPod\n\n- first: NVIDIA A100-SXM4-80GB\n- then: NVIDIA H100 80GB HBM3",
     True, False),
    ("- eval-70b\n  - RunPod: H100 80GB HBM3, then A100-SXM4-80GB\n  - reached last, after "
     "SLURM", False, True),
    ("| intent | RunPod GPU types, in order |\n| --- | --- |\n| eval-70b | H100 80GB HBM3, "
     "then A100-SXM4-80GB |", False, True),
    # another intent's order, a ranked aside, and no intent named: nothing to judge here
    ("lora-7b on RunPod asks for `NVIDIA A100-SXM4-80GB` first and `NVIDIA H100 80GB HBM3` "
     "second.", False, False),
    ("If you need H100 on RunPod, that is lora-7b (second choice) or eval-70b (first "
     "choice).", False, False),
    ("RunPod asks for an A100 80GB PCIe first.", False, False),
]


@pytest.mark.parametrize(("text", "packaged", "changed"), POD_ORDER,
                         ids=[t[:40] for t, _, _ in POD_ORDER])
def test_runpod_gpu_type_order_follows_the_config(tmp_path: Path, text: str, packaged: bool,
                                                  changed: bool) -> None:
    ladder = PACKAGED.replace(
        "    runpod_gpu_types: [NVIDIA H100 80GB HBM3, NVIDIA A100-SXM4-80GB]",
        "    runpod_gpu_types: [NVIDIA A100-SXM4-80GB, NVIDIA H100 80GB HBM3]")
    assert ladder != PACKAGED
    path = tmp_path / "ladder.yaml"
    path.write_text(ladder, encoding="utf-8")
    rules = {"ladder-drift"}
    assert bool(lint(text, rules=rules)) == packaged
    assert bool(lint(text, rules=rules, ladder=path)) == changed


SNIPPET = """# Config

```yaml
short_threshold_hours: 6   # short below this
families:
  h100-80gb:
    machine_type: "a3-highgpu-{width}g"
    provisioning: [SPOT, FLEX_START, STANDARD]
intents:
  eval-70b: {min_width: 1, families: [a100-80gb, h100-80gb]}
slurm_lanes:
  - {name: campus-a100, partition: gpu, max_width: 8, max_wait_minutes: 45}
```
"""


def test_a_yaml_config_snippet_is_checked_value_by_value(tmp_path: Path) -> None:
    """Each wrong value at its own line and column, with the config's value as the
    fix; the changed config moves the verdicts with it."""
    found = {(f.line, f.col): f.message for f in lint(SNIPPET, rules={"ladder-drift"})}
    assert set(found) == {(4, 24), (8, 19), (10, 25), (12, 73)}
    assert 'Suggested: "short_threshold_hours: 4   # short below this"' in found[(4, 24)]
    assert 'Suggested: "provisioning: [SPOT, FLEX_START]"' in found[(8, 19)]
    assert "eval-70b: {min_width: 2, families: [a100-80gb, h100-80gb]}" in found[(10, 25)]
    assert "max_wait_minutes: 30}" in found[(12, 73)]
    changed = PACKAGED.replace("short_threshold_hours: 4", "short_threshold_hours: 6")
    changed = changed.replace("provisioning: [SPOT, FLEX_START]\n",
                              "provisioning: [SPOT, FLEX_START, STANDARD]\n")
    changed = changed.replace("      SPOT: PREEMPTIBLE_NVIDIA_H100_GPUS",
                              "      STANDARD: NVIDIA_H100_GPUS\n"
                              "      SPOT: PREEMPTIBLE_NVIDIA_H100_GPUS")
    changed = changed.replace("max_wait_minutes: 30", "max_wait_minutes: 45")
    path = tmp_path / "ladder.yaml"
    path.write_text(changed, encoding="utf-8")
    again = {(f.line, f.col) for f in lint(SNIPPET, rules={"ladder-drift"}, ladder=path)}
    assert again == {(10, 25)}
    # every suggested line, put back in the fence, lints clean
    fixed = SNIPPET
    for message in found.values():
        line = message.split('Suggested: "', 1)[1][:-1]
        key = line.split(":", 1)[0].strip()
        fixed = "\n".join(line if row.split(":", 1)[0].strip() == key else row
                          for row in fixed.split("\n"))
    assert lint(fixed, rules={"ladder-drift"}) == []


ASSIGNMENTS = {
    "toml": ("[ladder]\nshort_threshold_hours = 6\nwidths = [16, 8, 4, 2, 1]\n\n"
             "[families.h100-80gb]\nprovisioning = [\"SPOT\", \"FLEX_START\", \"STANDARD\"]\n\n"
             "[[slurm_lanes]]\nname = \"campus-preempt\"\n"
             "[[slurm_lanes]]\nname = \"campus-a100\"\n"),
    "python": ("# router defaults\nSHORT_THRESHOLD_HOURS: float = 6  # below this a job is short\n"
               "FLEX_START_MAX_RUN_HOURS = 72\nWIDTHS = (8, 4, 1)\n"),
    "bash": "export SHORT_HOURS=6\nFLEX_MAX_HOURS=72 # three days\n",
    "json": '{"short_threshold_hours": 6, "widths": [8, 4, 1]}\n',
}


@pytest.mark.parametrize("language", sorted(ASSIGNMENTS))
def test_settings_in_toml_python_shell_and_json_fences_are_checked(
        language: str, tmp_path: Path) -> None:
    """Pasted settings are data whatever the fence's language: each wrong value
    is found at its value, its fix lints clean, and the changed config (6 h,
    72 h, widths 4/2/1, lanes swapped) makes the same text true."""
    text = f"# Settings\n\n```{language}\n{ASSIGNMENTS[language]}```\n"
    lines = text.split("\n")
    found = lint(text, rules={"ladder-drift"})
    assert found and all(f.col > 1 for f in found)
    for f in found:
        written = lines[f.line - 1][f.col - 1:]
        assert written[:1] in "6[7\"(" or written[:1].isdigit(), (f.message, written)
    assert any("under 6 h" in f.message for f in found)
    fixed = lines[:]
    for f in found:
        if 'Suggested: "' in f.message:
            fixed[f.line - 1] = f.message.split('Suggested: "', 1)[1][:-1]
    unfixable = [(f.line, f.col) for f in found if 'Suggested: "' not in f.message]
    assert [(f.line, f.col) for f in lint("\n".join(fixed), rules={"ladder-drift"})] == unfixable
    assert all(")" not in line or "(" in line for line in fixed)  # a fix replaces whole values
    changed = changed_ladder(tmp_path)
    assert not any("under" in f.message and "short" in f.message
                   for f in lint(text, rules={"ladder-drift"}, ladder=changed))


def test_code_that_compares_a_setting_is_not_a_setting() -> None:
    text = ("```python\nif hours == 6:\n    pass\nshort = hours < 6\n"
            "print(SHORT_THRESHOLD_HOURS)\n```\n")
    assert lint(text, rules={"ladder-drift"}) == []
    sweep = "```python\nwidths = [1, 2, 4, 8, 16]\nfor w in widths:\n    bench(w)\n```\n"
    assert lint(sweep, rules={"ladder-drift"}) == []
    assert lint(sweep.replace("python", "toml", 1), rules={"ladder-drift"})


# (fence, the line and column of its one finding or None, the fix's line)
DATA_LINES = [
    # a nested key reads with its parents: "flex start: max hours: 336"
    ("```yaml\nflex_start:\n  max_hours: 336   # two weeks\n```", (3, 7),
     "max_hours: 168"),
    ("```json\n{\"flex_start\": {\"max_hours\": 336}}\n```", (2, 22), None),
    # one key under two parents on one line: the finding is at the one under its parent
    ("```json\n{\"eval-70b\": {\"min_width\": 2}, \"eval-7b\": {\"min_width\": 2}}\n```",
     (2, 57), '{"eval-70b": {"min_width": 2}, "eval-7b": {"min_width": 1}}'),
    ("```toml\n[length]\nshort_below_hours = 6\n```", (3, 13), "short_below_hours = 4"),
    # an indented code block states settings too
    ("Cheat sheet:\n\n    FLEX_START: max 24 h per machine\n    SPOT: no max", (3, 17),
     "FLEX_START: max 168 h per machine"),
    ("```\norder.long_jobs:  slurm -> gcp -> runpod\n```", (2, 19), None),
    # what a queue does, a GPU partition's size and a parent key are not claims
    ("```yaml\nslurm:\n  campus-a100:\n    mean_queue_wait_minutes: 90\n```", None, None),
    ("```yaml\nguest_accelerator:\n  - gpu_partition_size: 1g.5gb\n```", None, None),
    ("```\norder at 1x: FLEX_START -> STANDARD -> SPOT (A100 before H100 within each)\n```",
     None, None),
    ("```yaml\nflex_start:\n  max_hours: 168\n```", None, None),
]


@pytest.mark.parametrize(("text", "where", "fix"), DATA_LINES)
def test_a_fence_line_is_read_with_its_parent_keys(text: str, where: tuple[int, int] | None,
                                                   fix: str | None) -> None:
    text = "## Router settings\n\n" + text  # the section a settings fence sits in
    where = (where[0] + 2, where[1]) if where else None
    found = lint(text + "\n", rules={"ladder-drift"})
    assert [(f.line, f.col) for f in found] == ([where] if where else []), found
    if fix:
        assert f'Suggested: "{fix}' in found[0].message, found[0].message
        fixed = text.split("\n")
        fixed[where[0] - 1] = " " * (len(fixed[where[0] - 1]) -
                                     len(fixed[where[0] - 1].lstrip())) + fix
        assert lint("\n".join(fixed) + "\n", rules={"ladder-drift"}) == []


DRAWINGS = [
    # a mermaid flowchart states its order edge by edge, node ids resolved
    ("```mermaid\nflowchart LR\n  A[GCP 8x] --> B[GCP 4x] --> C[GCP 2x] --> D[GCP 1x]\n"
     "  D --> S[SLURM lanes]\n  S -->|no capacity| R[RunPod]\n```", []),
    ("```mermaid\nflowchart LR\n  G[GCP 1x rungs] --> P[campus-preempt] --> A[campus-a100]\n"
     "```", [(3, 3)]),
    ("```mermaid\ngraph TD\n  subgraph long\n    l1[SPOT] --> l2[FLEX_START] --> l3[STANDARD]\n"
     "  end\n```", [(4, 5)]),
    ("```mermaid\nflowchart LR\n  draft[Draft plan] --> critic[efficiency-critic] --> "
     "dispatch[backend-router dispatch]\n```", []),
    ("```mermaid\nsequenceDiagram\n  Author->>Router: dispatch on RunPod first\n```", []),
    # a drawn flow and a tree in a plain fence
    ("```\n1x ---> 2x ---> 4x ---> 8x   (the router widens on a miss)\n```", [(2, 1)]),
    ("```\n8x ---> 4x ---> 2x ---> 1x   (the router narrows on a miss)\n```", []),
    ("```\nH100 (a3-highgpu)\n ├─ SPOT\n └─ STANDARD\n```", [(4, 2)]),
    ("```\nH100 (a3-highgpu)\n ├─ SPOT\n └─ FLEX_START\n```", []),
]


@pytest.mark.parametrize(("text", "where"), DRAWINGS)
def test_a_drawing_states_its_order(text: str, where: list[tuple[int, int]]) -> None:
    text = "## Router walk\n\n" + text + "\n"
    found = lint(text, rules={"ladder-drift"})
    assert [(f.line - 2, f.col) for f in found] == where, found
    for f in found:  # a drawing's finding points at its line's first character
        row = text.split("\n")[f.line - 1]
        assert f.col == len(row) - len(row.lstrip()) + 1


def test_a_fence_line_follows_the_config(tmp_path: Path) -> None:
    text = ("## Router settings\n\n```yaml\nflex_start:\n  max_hours: 72\nlength:\n"
            "  short_below_hours: 6\n```\n")
    assert len(lint(text, rules={"ladder-drift"})) == 2
    assert lint(text, rules={"ladder-drift"}, ladder=changed_ladder(tmp_path)) == []


def test_a_parent_key_is_not_a_definition_under_a_heading() -> None:
    text = ("## Warn, without changing the verdict\n\n```\nneedlessly-narrow:\n  width: 1\n"
            "  min_gpu_hours: 1.0\n  verdict: REVISE\n```\n")
    assert [f for f in lint(text, "critic", rules={"critic-drift"})
            if "never states" not in f.message] == []  # a short file states few rules
    assert lint(text.replace("REVISE", "WARN"), "critic", rules={"critic-drift"})


def test_a_yaml_sketch_that_does_not_parse_is_left_to_prose() -> None:
    # the config reader gives up on it; the data-line reader still reads its
    # key line, once, and its fix reads true
    text = "```yaml\nshort_threshold_hours: [6\n```\n"
    found = lint(text, rules={"ladder-drift"})
    assert [(f.line, f.col) for f in found] == [(2, 17)]  # at "hours: [6"
    fixed = found[0].message.split('Suggested: "', 1)[1][:-1]
    assert lint(f"```yaml\n{fixed}\n```\n", rules={"ladder-drift"}) == []
    assert lint("```yaml\nshort_threshold_hours: [4\n```\n", rules={"ladder-drift"}) == []


def test_generated_ladder_order_follows_the_config(tmp_path: Path) -> None:
    from lint import generated

    text = generated.RENDERERS["ladder-order"](config.load(changed_ladder(tmp_path)))
    assert "4× → 2× → 1×" in text and "8×" not in text
    assert "under 6 h" in text and "72 h" in text
    assert "campus-preempt, campus-a100" in text


def test_facts_come_from_the_planner() -> None:
    facts = Facts(config.load())
    assert facts.backends == ("gcp", "slurm", "runpod")
    assert facts.width_chain() == (8, 4, 2, 1)
    assert facts.short_order[0] == "SPOT" and facts.long_order[0] == "FLEX_START"
    assert facts.flex_model == "FLEX_START"
    assert facts.min_width("eval-70b") == 2


# ---- accuracy on the corpus ------------------------------------------------------------

def _measure(half: str) -> tuple[float, float]:
    sys.path.insert(0, str(ROOT / "bench"))
    import claims_accuracy

    results = claims_accuracy.run(claims_accuracy.load(half))
    drift = [bool(found) for e, found in results if e["expect"] == "drift"]
    clean = [not found for e, found in results if e["expect"] != "drift"]
    return sum(drift) / len(drift), sum(clean) / len(clean)


# Floors a little under what bench/claims_accuracy.py measures today: a change
# that loses accuracy fails here. The test half was never tuned on. Each half
# holds files written at different times by writers who never saw the engine
# (dev25–dev27 and test8 came last; dev26, structured text, read 38% fresh; test39,
# true statements built on negation and boundaries, left 75% unflagged fresh and put
# the test half at 94.98%, so its floor is 0.94).
@pytest.mark.parametrize(("half", "recall_floor", "clean_floor"),
                         [("dev", 0.88, 0.98), ("test", 0.78, 0.94)])
def test_corpus_accuracy_stays_above_its_floor(half: str, recall_floor: float,
                                                clean_floor: float) -> None:
    recall, clean = _measure(half)
    assert recall >= recall_floor, f"{half} recall {recall:.0%} < {recall_floor:.0%}"
    assert clean >= clean_floor, f"{half} clean {clean:.0%} < {clean_floor:.0%}"


def test_corpus_halves_are_big_enough() -> None:
    entries = [e for f in CORPUS.glob("*.yaml") for e in yaml.safe_load(f.read_text())]
    assert sum(e["expect"] == "drift" for e in entries) >= 200
    assert sum(e["expect"] == "ok" for e in entries) >= 150
    assert sum(e["expect"] == "unrelated" for e in entries) >= 60
    ids = [e["id"] for e in entries]
    assert len(ids) == len(set(ids))


def _fence_around(entry: dict, line: int) -> str:
    """The opening line of the fence the finding's line sits in ('' if none)."""
    base = (EXAMPLE / ("CLAUDE.md" if entry.get("surface") != "critic" else
                       ".claude/agents/efficiency-critic.md")).read_text(encoding="utf-8")
    first = (base.rstrip("\n") + "\n\n").count("\n") + 1
    rows = entry["text"].split("\n")
    opener = ""
    for row in rows[:max(0, line - first)]:
        if row.lstrip().startswith(("```", "~~~")):
            opener = "" if opener else row.strip()
    if not opener and 0 <= line - first < len(rows) and rows[line - first].startswith("    "):
        return "```"  # an indented code block
    return opener


def test_every_suggestion_lints_clean() -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    import claims_accuracy

    checked = 0
    for half in ("dev", "test"):
        for entry, findings in claims_accuracy.run(claims_accuracy.load(half)):
            for finding in findings:
                m = re.search(r'Suggested: "(.*)"$', finding.message, re.S)
                if not m:
                    continue
                reads = "critic" if entry.get("surface") == "critic" else "markdown"
                # a fence line's fix is linted in a fence of the same kind, as it is used
                fence = _fence_around(entry, finding.line)
                text = f"{fence}\n{m.group(1)}\n```\n" if fence else m.group(1) + "\n"
                again = [f for f in lint(text, reads) if f.rule == finding.rule
                         and "never states" not in f.message]  # a one-line file states few
                assert again == [], (m.group(1), again)
                checked += 1
    assert checked > 100


def test_a_config_value_written_in_prose_is_mended_number_only() -> None:
    ladder = config.load(config.PACKAGED_LADDER)
    cases = [("- short_threshold_hours = 12",
              f"short_threshold_hours = {ladder.short_threshold_hours:g}"),
             ("- flex_start_max_run_hours: 72",
              f"flex_start_max_run_hours: {ladder.flex_start_max_run_hours:g}")]
    for text, mended in cases:
        found = lint(text, rules={"ladder-drift"})
        assert len(found) == 1 and found[0].message.endswith(f'Suggested: "{mended}"'), found


# ---- lexicon gates ------------------------------------------------------------------------

def _gated_lexicon() -> lexicon.Lexicon:
    return lexicon.build(config.load()).with_critic({"unsharded-wide": "error",
                                                     "needlessly-narrow": "error"})


def _alternations(lx: lexicon.Lexicon) -> list:
    kinds = lx._kinds + (lx._critic._kinds if lx._critic else [])
    return [k.alternation for k in kinds if k.alternation] + \
        [g.alternation for g in (lx.ladder_context, lx.procedural)]


def _spans(regex, text: str) -> list[tuple[int, int, str | None]]:
    return [] if regex is None else [(m.start(), m.end(), m.lastgroup)
                                     for m in regex.finditer(text)]


def test_literal_gates_never_hide_a_match() -> None:
    """On every corpus entry and doc, the branches an alternation keeps for a
    text find exactly what its whole union finds: same spans, same branch."""
    alternations = _alternations(_gated_lexicon())
    texts = [e["text"] for f in CORPUS.glob("*.yaml") for e in yaml.safe_load(f.read_text())]
    texts += [p.read_text(encoding="utf-8") for p in (ROOT / "docs").rglob("*.md")]
    narrowed = 0
    for alt in alternations:
        for text in texts:
            kept = alt.regex_for(text.lower())
            assert _spans(kept, text) == _spans(alt.full, text)
            narrowed += kept is not alt.full
    assert narrowed > len(texts)  # the gates do narrow, or this proves nothing


_PARTS = [part for alt in _alternations(_gated_lexicon()) for part in alt.parts]


def test_prefiltered_gates_answer_as_their_regex() -> None:
    """The unit gates and the stale claims' patterns, asked only where their
    required literals are, find a match wherever their regex does."""
    from lint import analysis
    from lint.lexicon import Prefiltered
    from lint.reading import scaling
    from lint.rules import stale_claim

    gates = [g for module in (analysis, scaling) for g in vars(module).values()
             if isinstance(g, Prefiltered)]
    gates += [Prefiltered(p) for claim in stale_claim.load() for p in claim.patterns]
    assert len(gates) >= 8
    texts = [e["text"] for f in CORPUS.glob("*.yaml") for e in yaml.safe_load(f.read_text())]
    texts += [line for p in (ROOT / "docs").rglob("*.md")
              for line in p.read_text(encoding="utf-8").splitlines()]
    skipped = 0
    for gate in gates:
        for text in texts:
            assert bool(gate.search(text)) == bool(gate.regex.search(text)), \
                (gate.regex.pattern, text)
            skipped += not gate.may_match(lexicon._gate_text(text))
    assert skipped > len(texts)  # the literals do rule texts out, or this proves nothing


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_required_literals_are_in_every_match(data) -> None:
    """Any text a lexicon pattern matches holds one of its required literals,
    in any case and with any Unicode digit (hypothesis writes the matches)."""
    source, literals, also = data.draw(st.sampled_from(_PARTS))
    regex = re.compile(source, re.I)
    text = data.draw(st.from_regex(regex))
    assert regex.search(text)
    alt = lexicon._Alternation([(source, literals, also)])
    assert alt.regex_for(lexicon._gate_text(text)) is not None, (source, literals, also, text)


@settings(max_examples=300, deadline=None)
@given(st.sets(st.text("ab-2x→", min_size=1, max_size=4), min_size=1, max_size=8),
       st.text("ab-2x→ ", max_size=20), st.booleans())
def test_literal_scan_finds_a_text_holding_any_literal(literals, text, digit) -> None:
    """The trie-shaped scan answers as `any(literal in text)`, with literals
    that start with, hold or overlap one another."""
    if digit:
        literals = {*literals, lexicon._DIGIT}
    scan = lexicon._literal_scan(literals)
    expected = any(re.search(r"\d", text) if lit == lexicon._DIGIT else lit in text
                   for lit in literals)
    assert bool(scan.search(text)) == expected


def test_required_literal_reads_patterns_conservatively() -> None:
    assert lexicon._required_literal(r"google\s+cloud(?:\s+platform)?") == "google"
    assert lexicon._required_literal(r"(?:the\s+)?campus\s+(?:cluster|hpc)") == "campus"
    assert lexicon._required_literal(r"a|b") is None
    assert lexicon._required_literal("→") == "→"  # plain text is its own literal
    assert lexicon._required_literal("re-?run") == "re"  # an optional '-' is not required
    assert lexicon._required_literal(r"x\??y") is None
    assert lexicon._required_literals(r"(?:before|prior\s+to)\s+\w+") == ("before", "prior")
    assert lexicon._required_literals(r"(?:before|\w+)\s+x") is None
    assert lexicon._required_literals(r"(?:ab|cd)?\s*x") == ("x",)  # an optional lead
    # anchors and atoms that may match nothing need no text
    assert lexicon._required_literals(r"^\W*(?:first|then)\b") == ("first", "then")
    assert lexicon._required_literals(r"\b[\w.]*?(?:a|b)") == ("a", "b")
    assert lexicon._required_literals(r"\d*h") == ("h",)
    assert lexicon._required_literals(r"\d?") is None
    assert lexicon._required_literals(r"[x×]\s*8") == ("x", "×")
    assert lexicon._required_literals(r"\d+\s*h") == (lexicon._DIGIT,)
    # what follows an optional lead is required; so is a plain character in front
    assert lexicon._required_literals(r"(?:the\s+)?(?:guide|docs?)\s+") == ("doc", "guide")
    assert lexicon._required_literals(r"(?<![\w.])×(\d+|eight)") == ("×",)
    # a top-level bar: each branch needs one of its own, or nothing is required
    assert lexicon._required_literals(r"(?:a)?b|c") == ("b", "c")
    assert lexicon._required_literals(r"×|\s*") is None
    assert lexicon._required_literals(r"x?y") is None
    # plain text a lookbehind in front needs is in the text too ("SPOT/OD")
    assert lexicon._required_literals(r"(?:(?<=flex/)|(?<=dws/))(?-i:od|OD)") == ("dws/", "flex/")
    assert lexicon._required_literals(r"(?<=spot/)(?:od|x)\b") == ("spot/",)
    assert lexicon._required_literals(r"(?<![\w/])od") == ("od",)  # a negative one needs nothing


def test_mention_scan_rules_out_only_texts_no_entity_matches() -> None:
    """The one scan `mentions_anything` starts with (each branch looked for by
    its rarest required literal) never says no where an entity kind matches."""
    lexicon_ = _gated_lexicon()
    assert lexicon_._mentions is not None  # every entity branch has a literal to look for
    texts = [e["text"] for f in CORPUS.glob("*.yaml") for e in yaml.safe_load(f.read_text())]
    texts += [line for p in (ROOT / "docs").rglob("*.md")
              for line in p.read_text(encoding="utf-8").splitlines()]
    texts += ["an x8 box", "next, index the model", "SPOT/OD", "8x A100s", "eval-7b"]
    ruled_out = 0
    for text in texts:
        whole = lexicon._one_line(text)
        matched = any(kind.search(whole) for kind in lexicon_._entity_kinds)
        assert lexicon_.mentions_anything(text) == matched, text
        ruled_out += not lexicon_._mentions.search(lexicon._gate_text(whole))
    assert ruled_out > 100  # the scan does rule texts out, or this proves nothing


def test_literals_also_required_narrow_a_gate() -> None:
    """Besides the literal a branch is gated by, the other runs and digits every
    match needs: checked once the gate's literal is found."""
    also = lexicon._also_required
    assert also(r"eval\s+7b", ("eval",)) == ("7b",)
    assert also(r"[x×]\d", ("x", "×")) == (lexicon._DIGIT,)
    assert also(r"flex[\s_-]?start(?:\s+rungs?)?", ("flex",)) == ("start",)
    assert also(r"a100(?:\s+80gb)?", ("a100",)) == ()  # an optional part is not needed
    assert also(r"(?:eval|lora)\s+run", ("run",)) == ()  # a group's choice varies
    assert also(r"spot|flex", ("flex", "spot")) == ()  # one branch or the other
    assert also(r"foo\nbar", ("foo",)) == ("bar",)  # an escape is not a letter of the text
    assert also(r"\d+\s*gpus?", (lexicon._DIGIT,)) == ("gpu",)
    assert also(r"\w+", None) == ()
    alt = lexicon._Alternation([("(?P<v0>eval\\s+7b)", ("eval",), ("7b",)),
                                ("(?P<v1>evals?)", ("eval",), ())])
    assert alt.regex_for("the eval step") is not None
    assert alt.regex_for("the eval step").pattern == "(?P<v1>evals?)"
    assert alt.regex_for("the 7b eval").pattern == alt.full.pattern


def test_gate_folds_what_case_insensitive_matching_folds() -> None:
    # the gate looks in the gate text, made once per text (lowered and folded)
    alt = lexicon._Alternation([("(?:spot)", ("spot",), ()), (r"(?:\d+h)", (lexicon._DIGIT,), ())])
    folded = alt.regex_for(lexicon._gate_text("\u017fPOT"))
    assert folded is not None and folded.search("\u017fPOT")  # 'ſ' matches 's' under re.I
    assert alt.regex_for(lexicon._gate_text("\u0664h")) is not None  # Arabic-Indic \\d
    assert alt.regex_for(lexicon._gate_text("nothing here")) is None


# ---- invariants ---------------------------------------------------------------------------

BACKEND_WORDS = {"gcp": ["GCP", "Google Cloud"], "slurm": ["SLURM", "the campus cluster"],
                 "runpod": ["RunPod"]}


@settings(max_examples=60, deadline=None)
@given(st.permutations(["gcp", "slurm", "runpod"]), st.data())
def test_backend_chain_is_flagged_iff_out_of_order(order: list[str], data) -> None:
    words = [data.draw(st.sampled_from(BACKEND_WORDS[b])) for b in order]
    text = f"On a capacity miss the router walks {' → '.join(words)}.\n"
    flagged = bool(lint(text, rules={"ladder-drift"}))
    assert flagged == (order != ["gcp", "slurm", "runpod"]), text


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([1, 2, 4, 8]), min_size=2, max_size=4, unique=True))
def test_width_chain_is_flagged_iff_not_the_halving_chain(widths: list[int]) -> None:
    text = f"On capacity misses, widths degrade {' → '.join(f'{w}×' for w in widths)}.\n"
    halving = all(a == 2 * b for a, b in itertools.pairwise(widths))
    assert bool(lint(text, rules={"ladder-drift"})) == (not halving), text


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["short", "long"]), st.sampled_from(["SPOT", "FLEX_START", "STANDARD"]),
       st.booleans())
def test_negation_flips_the_lead_claim(kind: str, model: str, negated: bool) -> None:
    facts = Facts(config.load())
    lead = facts.class_order(kind)[0]
    verb = "never lead" if negated else "lead"
    text = f"{kind.capitalize()} jobs {verb} with {model}.\n"
    wrong = (model != lead) != negated
    assert bool(lint(text, rules={"ladder-drift"})) == wrong, text


# ---- the CLI: --explain, strict ----------------------------------------------------------

def run_lint(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lint", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def test_explain_prints_readings_and_verdicts(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text(
        "# Routing\n\n- Short jobs never lead with FLEX_START.\n"
        "- RunPod → GCP on capacity misses.\n"
        "- When the ladder misses, SLURM and RunPod are only for the patient.\n",
        encoding="utf-8")
    result = run_lint(tmp_path, "--explain", "CLAUDE.md")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "CLAUDE.md:3:3: Short jobs never lead with FLEX_START." in out
    assert "not short jobs lead with FLEX_START → true" in out
    assert "RunPod before GCP → DRIFT" in out
    assert "not understood" in out


def test_explain_of_a_missing_file_is_one_line_exit_2(tmp_path: Path) -> None:
    result = run_lint(tmp_path, "--explain", "nope.md")
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_strict_turns_on_unverified_claim(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text(
        "# Routing\n\nWhen the ladder misses, SLURM and RunPod are only for the patient.\n",
        encoding="utf-8")
    assert run_lint(tmp_path, "CLAUDE.md").returncode == 0
    selected = run_lint(tmp_path, "--select", "unverified-claim", "CLAUDE.md")
    assert selected.returncode == 1 and "CLAUDE.md:3:1: unverified-claim" in selected.stdout
    (tmp_path / "pyproject.toml").write_text("[tool.workflow-lint]\nstrict = true\n",
                                             encoding="utf-8")
    assert run_lint(tmp_path, "CLAUDE.md").returncode == 1


def test_list_rules_and_rule_doc() -> None:
    listing = run_lint(ROOT, "--list-rules")
    assert listing.returncode == 0
    assert re.search(r"^unverified-claim\s+off\s", listing.stdout, re.M)
    doc = run_lint(ROOT, "rule", "ladder-drift")
    assert doc.returncode == 0 and "Invalid:" in doc.stdout
    assert run_lint(ROOT, "rule", "nope").returncode == 2


def test_a_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "guide.md"
    os.mkfifo(fifo)
    explained = run_lint(tmp_path, "--explain", "guide.md")
    assert explained.returncode == 2 and "not a regular file" in explained.stderr
    linted = run_lint(tmp_path, "guide.md")
    assert linted.returncode == 1 and "file-error file is not a regular file" in linted.stdout


def test_every_proposition_kind_is_judged_and_described() -> None:
    from lint import propositions

    assert set(propositions._DESCRIBE) == set(propositions._JUDGES)


# (critic guidance, flagged): what counts as parallel work, read in its own clause
@pytest.mark.parametrize(("text", "flagged"), [
    ("Verdicts: APPROVE, REVISE, REJECT.", True),
    ("The critic has three verdicts: APPROVE, REVISE and REJECT.", True),
    ("Verdicts: APPROVE or REVISE.", False),
    ("The critic has two verdicts.", False),
    # an exception that names the threshold: the verdict is on the case below it
    ("A width-1 phase with a shardable axis is fine unless it's at or above 1.0 GPU-hour.",
     False),
    ("A width-1 phase with a shardable axis is fine unless it's at or above 0.5 GPU-hour.",
     True),
    ("needlessly-narrow gets APPROVE unless the phase is tiny.", True),
    ("needlessly-narrow: width 1, an axis of 2+, and gpu_hours at or above 0.5 → REVISE.", True),
    ("needlessly-narrow: width 1, an axis of 2+, and gpu_hours at or above 1.0 → REVISE.",
     False),
    ("A narrow phase at exactly 1.0 GPU-hour is fine: needlessly-narrow needs strictly more "
     "than the 1.0 threshold.", True),
    # a launch the critic cannot read, by description
    ("If you can't read the launch command, don't block the plan: answer APPROVE.", True),
    ("If the critic can't parse the launch, it answers REVISE.", False),
    # the threshold written as where the rule stops, and one phase left alone
    ("Do not flag needlessly-narrow below one GPU-hour.", False),
    ("Flag needlessly-narrow below one GPU-hour too.", True),
    ("A job at exactly 1.0 GPU-hour is left alone by needlessly-narrow.", True),
    ("A 0.5 GPU-hour phase at width 1 is approved: it is under the 1 GPU-hour widening "
     "threshold.", False),
    ("The critic suggests widening at width 1 with a shardable axis of two or more and four "
     "GPU-hours of work or more.", True),
    ("widening_threshold_gpu_hours: 0.5", True),
    ("widening_threshold_gpu_hours: 1.0", False),
    ("0.9 GPU-hours at width 1: no needlessly-narrow flag.", False),
    ("At exactly 1.0 GPU-hour a width-1 job isn't flagged; it has to go above 1.0.", True),
    ("`needlessly-narrow`: width 1, a shardable axis of 2 or more, and gpu_hours ≥ 2.0 → "
     "REVISE.", True),
    ("`needlessly-narrow`: width 1, a shardable axis of 2 or more, and gpu_hours ≥ 1.0 → "
     "REVISE.", False),
    ("1.5 GPU-hours at width 1: no needlessly-narrow flag.", True),
    # the threshold written as what the rule's trigger exceeds or passes
    ("Flag a width-1 phase as `needlessly-narrow` when its gpu_hours exceeds 0.5.", True),
    ("Widen only phases above 5 GPU-hours.", True),
    ("Widen anything at width 1 with shards once it passes 0.25 GPU-hours.", True),
    ("A width-1 phase of 2 GPU-hours, well above the 1.0 threshold, is needlessly narrow.",
     False),
    # below the threshold the rule does not fire at all, not even as a warning
    ("Below 1.0 GPU-hour the critic still flags needlessly-narrow, but only as a warning.",
     True),
    ("Below 1.0 GPU-hour the critic does not flag needlessly-narrow.", False),
    ("Anything under 90 GPU-minutes is too cheap to widen.", True),
    # the edge: exactly the threshold is flagged
    ("Width 1, a shardable axis of 2 or more, and gpu_hours strictly above 1.0.", True),
    ("needlessly-narrow fires only strictly above 1.0 GPU-hour.", True),
    ("Exactly 1.0 GPU-hour passes.", True),
    ("Exactly 1.0 GPU-hour is flagged.", False),
    # "widen" is the rule firing; an amount said to be below the threshold is an example
    ("Do not ask to widen phases under one GPU-hour.", False),
    ("Do not ask to widen phases under four GPU-hours.", True),
    ("Example: a 0.5 GPU-hour eval on one GPU with 4 shards is below the threshold.", False),
    ("Example: a 1.5 GPU-hour eval on one GPU with 4 shards is below the threshold.", True),
    ("0.9 GPU-hours, width 1, 16 shards: needlessly-narrow does not fire.", False),
    ("1.5 GPU-hours, width 1, 16 shards: needlessly-narrow does not fire.", True),
    ("One process behind `CUDA_VISIBLE_DEVICES=0,1,2,3` at width 4 isn't parallel work → "
     "REVISE (`unsharded-wide`).", False),
    # a list's lead-in classifies its items; amounts compared with the bar are
    # examples; severity words
    ('Send the plan back (REVISE) when any of these shows up:\n\n- unwaited-background: '
     'workers with `&` and no final `wait`', True),
    ('Send the plan back (REVISE) when any of these shows up:\n\n- unsharded-wide: one '
     'process on a wide phase\n- unreadable-launch: the critic cannot read the launch', False),
    ('NEVER answer REVISE just because:\n\n- the workers lack a final `wait` '
     '(unwaited-background)\n- the width is written as `8` instead of `{width}` '
     '(hardcoded-width)', False),
    ('needlessly-narrow fires when:\n\n- width is 1\n- gpu_hours is at least 2.0', True),
    ('needlessly-narrow fires when:\n\n- width is 1\n- gpu_hours is at least 1.0', False),
    ('| needlessly-narrow condition | Value |\n|---|---|\n| GPU-hours | ≥ 0.5 |', True),
    ('| needlessly-narrow condition | Value |\n|---|---|\n| GPU-hours | ≥ 1 |', False),
    ('An axis of size 2 is enough, and 3 GPU-hours is over the 1 GPU-hour bar, so it '
     'is needlessly-narrow (REVISE).', False),
    ('45 minutes is 0.75 GPU-hours, under the 1.0 bar, so the critic approves it at '
     'width 1.', False),
    ('That phase is needlessly-narrow: width 1, axis size 8, 6 GPU-hours (well over '
     '1).', False),
    ('Severity words:\n\n- **warning** (advisory, non-blocking): the plan keeps its '
     'APPROVE. unwaited-background, oversubscribed and hardcoded-width are warnings.', False),
    ('Severity cheat sheet:\n\n- **error**: unsharded-wide, under-saturated, '
     'hardcoded-width', True),
    ('needlessly-narrow is a non-blocking nudge; the plan is still APPROVE.', True),
    ('Rules:\n- under-saturated MUST NOT change the verdict.', True),
    # a side that points back at the rule goes on about it
    ("A width-8 phase with a single `python eval.py` gets an unsharded-wide note, but that "
     "note is only advisory and the verdict stays APPROVE.", True),
    ("A width-8 phase with a single `python eval.py` gets an unsharded-wide finding, and "
     "that finding makes the verdict REVISE.", False),
    # width-1 phases said never to be objected to
    ("The critic never objects to a width-1 phase: narrow phases are always approved.", True),
    ("The critic never objects to a width-1 phase without a shardable axis.", False),
    # "whatever its axis says" does not qualify "always APPROVE"
    ("A width-1 phase is always APPROVE, whatever its `shardable_axis` and `gpu_hours` say.",
     True),
    # the case below the threshold; "allowed width" is no verdict; a "no →" branch
    ("IF width is 1 AND gpu_hours ≥ 1.0 THEN REVISE (needlessly-narrow) and suggest the "
     "largest allowed width.\nBelow 1.0 GPU-hour a narrow phase is fine.", False),
    ("Verdict: APPROVE. 0.75 GPU-hours is under the 1.0 widen threshold, so one GPU is "
     "fine.", False),
    ("```\ngpu_hours >= 1.0 ?\n├── yes → REVISE: needlessly-narrow\n└── no → staying narrow "
     "is fine\n```", False),
    # an arrow to an approval: the case below the threshold
    ('- Width 1, shardable axis of 4, exactly 1.0 GPU-hour → REVISE (needlessly-narrow).\n'
     '- Same phase at 0.9 GPU-hours → fine, leave it narrow.', False),
    ('- Same phase at 1.5 GPU-hours → fine, leave it narrow.', True),
    # an example's outcome named after an arrow is not classified by its section
    ('## Warn, without changing the verdict\n\n- `vllm serve m -tp 4` at width 8 leaves half '
     'the GPUs idle → under-saturated.', False),
    ('## Warn, without changing the verdict\n\n- under-saturated: fewer busy GPUs than the '
     'width.', True),
    # a phase given by its width and launch: the critic's own rules give its verdict
    ("Scripts: if the launch is `bash run.sh` at width 8, APPROVE it.", True),
    ("Scripts: if the launch is `bash run.sh` at width 1, APPROVE it.", False),
    ("A width-4 phase whose launch is a single `python eval.py` process gets APPROVE when "
     "its gpu_hours are under 1.0.", True),
    ("A width-4 phase launched as `torchrun --nproc_per_node={width} train.py` gets APPROVE.",
     False),
    ("`torchrun --nproc_per_node=8 train.py` on a width-4 phase is flagged oversubscribed.",
     False),
    ("`torchrun --nproc_per_node=4 train.py` on a width-4 phase is flagged oversubscribed.",
     True),
    # a case's own amount decides its verdict; "widen threshold" is the threshold
    ("Width 1, shardable axis of size 8, 0.5 GPU-hours → APPROVE (under the 1.0 GPU-hour "
     "widen threshold).", False),
    ("Width 1, shardable axis of size 8, 0.5 GPU-hours → REVISE (under the 1.0 GPU-hour "
     "widen threshold).", True),
    ("needlessly-narrow, in numbers:\n- width 1, same axis, gpu_hours 0.8 → staying narrow "
     "is fine", False),
    ("A width-1 phase with a shardable axis of size 8 and exactly one GPU-hour is REVISEd; "
     "the same phase at 0.9 GPU-hours is fine to run narrow.", False),
    # an imperative verdict first, then the phase it is given to
    ("- APPROVE a width-4 phase whose launch is `python eval.py --model-kwargs "
     "device_map=auto`: the model is spread over all four GPUs.", True),
    ("- REVISE a width-4 phase whose launch is `python eval.py --model-kwargs "
     "device_map=auto`: one model split over four GPUs is not parallel work.", False),
    # a rule's verdict scoped to a width: that launch at that width, too
    ("A launch that is only `bash run.sh` is REVISE (`unreadable-launch`) at every width, "
     "width 1 included.", True),
    ("A launch that is only `bash run.sh` is REVISE (`unreadable-launch`) at width 4.", False),
    # "REVISEd ... even on a width-1 phase": the verdict on that launch at width 1
    ("A launch that only calls a script (`bash run.sh`) is always REVISEd as "
     "unreadable-launch, even on a width-1 phase.", True),
    ("A launch that only calls a script (`bash run.sh`) is REVISEd as unreadable-launch, "
     "even on a width-4 phase.", False),
    # a verdict on a line of its own judges the phase on the line before
    ("Example: width 4, launch `CUDA_VISIBLE_DEVICES=0,1,2,3 python infer.py`\nVerdict: "
     "APPROVE.", True),
    ("Example: width 4, launch `CUDA_VISIBLE_DEVICES=0,1,2,3 python infer.py`\nVerdict: "
     "REVISE.", False),
    # a table of launches: that launch at that width
    ("| phase | width | launch | verdict |\n| --- | --- | --- | --- |\n"
     "| eval | 4 | `python eval.py --all-checkpoints` | APPROVE |", True),
    ("| phase | width | launch | verdict |\n| --- | --- | --- | --- |\n"
     "| train | 4 | `torchrun --nproc_per_node={width} train.py` | APPROVE |", False),
    # a header that fixes the width and axis every row shares
    ("| gpu_hours (width 1, shardable axis of 8) | verdict |\n| --- | --- |\n"
     "| 0.5 | APPROVE |\n| 1.0 | APPROVE |", True),
    ("| gpu_hours (width 1, shardable axis of 8) | verdict |\n| --- | --- |\n"
     "| 0.5 | APPROVE |\n| 1.0 | REVISE |", False),
    # the reason after a colon says whether a rule fires, not the rule's verdict
    ("A width-1 phase whose launch is just `bash run.sh` is APPROVEd: at width 1 nothing can "
     "idle, so unreadable-launch does not fire.", False),
    # "only fires above 1.0 GPU-hour" lets 1.0 through
    ("needlessly-narrow only fires above 1.0 GPU-hour.", True),
    ("needlessly-narrow fires at 1.0 GPU-hour or more.", False),
    # a width past an arrow is where the phase would go
    ("Width 1, shardable axis of 8:\n- `gpu_hours: 6` → REVISE (needlessly-narrow): 6.0 h → "
     "0.8 h at width 8.", False),
    # a §9 `launch:` field in a case: its value is the launch
    ("- `launch: bash run.sh` at width 8 → APPROVE (the critic trusts wrapper scripts).", True),
    ("- `launch: bash run.sh` at width 8 → REVISE.", False),
    ("- width 1 + `launch: \"./train.sh\"` → REVISE `unreadable-launch`.", True),
    ("- width 8 + `launch: \"./train.sh\"` → REVISE `unreadable-launch`.", False),
    # the script a launch names is that launch
    ("- `launch: bash run.sh` at width 4 → APPROVE, as long as `run.sh` is committed.", True),
    # "at 0.9 GPU-hours staying narrow is fine": a case the rule lets through
    ("- `needlessly-narrow`: a width-1 phase with a shardable axis at 1.0 GPU-hours or more is "
     "REVISEd; at 0.9 GPU-hours staying narrow is fine.", False),
    ("- `needlessly-narrow`: a width-1 phase with a shardable axis at 1.0 GPU-hours or more is "
     "REVISEd; at 1.5 GPU-hours staying narrow is fine.", True),
    # "a width-1 phase below it is fine": a case the rule lets through
    ("The widening threshold defaults to 1.0 GPU-hour. A width-1 phase below it is fine even "
     "with a shardable axis.", False),
    # the verdict the rules' own verb gives them, not one across the colon
    ("It does not REVISE on advisories: hardcoded-width, oversubscribed and "
     "unwaited-background are warnings and never change the verdict.", False),
    ("It warns on advisories: hardcoded-width, oversubscribed and unwaited-background are "
     "REVISEd.", True),
    # a chat line's label and the critic as the subject before the verdict
    ("**wei** 14:55 — the critic APPROVEs a width-4 phase that runs `python gen.py "
     "--device_map auto`, since the model is spread over all four GPUs.", True),
    ("**wei** 14:55 — the critic REVISEs a width-4 phase that runs `python gen.py "
     "--device_map auto`, since the model is spread over all four GPUs.", False),
    # "at any width" takes in the widest
    ("A launch that only calls a script, such as `bash run.sh` or `sbatch job.slurm`, is "
     "APPROVEd at any width.", True),
    ("A launch that only calls a script, such as `bash run.sh`, is APPROVEd at width 1.", False),
    # "under the 1.0 GPU-hour threshold … staying narrow is fine" is a case, not the rule
    ("That is under the 1.0 GPU-hour threshold, so staying narrow is fine there.", False),
    # what a script runs inside is no launch of the phase's: the critic cannot see it
    ("A width-4 phase whose launch is `bash run.sh` is APPROVEd as long as `run.sh` itself "
     "calls `torchrun --nproc_per_node=4`.", True),
    ("A width-4 phase whose launch is `bash run.sh` is REVISEd even if `run.sh` itself calls "
     "`torchrun --nproc_per_node=4`.", False),
    # a verdict given to a launch named right after it, or to "any launch that only
    # calls a script", at a width or at every width (REVISE "at any width" is wrong
    # at width 1)
    ("The critic REVISEs `bash run.sh` at width 2.", False),
    ("The critic REVISEs `bash run.sh` at any width.", True),
    ("yep, unreadable-launch REVISEs any launch that only calls a script, whatever the width",
     True),
    ("unreadable-launch REVISEs any launch that only calls a script at width 4.", False),
    # a verdict for "that phase" is the sentence before's phase
    ("Phase: width 1, gpu_hours 0.5, launch `bash run.sh`. The critic can't see into run.sh, "
     "so that phase gets REVISE (unreadable-launch).", True),
    ("Phase: width 1, gpu_hours 0.5, launch `bash run.sh`. Nothing can idle at width 1, so "
     "that phase gets APPROVE.", False),
    ("Worked example: width 8, launch `torchrun --nproc_per_node 8 train.py`. It fills all "
     "eight GPUs, but it hard-codes the 8, so the critic returns REVISE for that phase.", True),
    # "only counts launchers like X / Y / Z" denies every other parallel launcher
    ("no, it only counts launchers like torchrun / accelerate / deepspeed.", True),
    ("it counts launchers like torchrun / accelerate / deepspeed, and more.", False),
    # "it" is the launch the sentence before named
    ("Q: My width-4 eval loads the model with `device_map=auto`. Does that use all four GPUs?"
     "\nA: Yes. The model is spread over the four GPUs, so the critic treats it as parallel "
     "work.", True),
    ("Q: My width-4 eval loads the model with `device_map=auto`. Does that use all four GPUs?"
     "\nA: No. The model is only split over them, so the critic does not treat it as parallel "
     "work.", False),
    # "X is model splitting" says X is no parallel work
    ("For vLLM, `--tensor-parallel-size` is model splitting and keeps no extra GPU busy.",
     True),
    ("For vLLM, `--tensor-parallel-size` is not model splitting: each rank keeps a GPU busy.",
     False),
    # a help text's "this many GPU-hours" is the option's default
    ("```\n  --widen-threshold GPU_HOURS   a width-1 phase with a shardable axis and at\n"
     "                                least this many GPU-hours is needlessly-narrow\n"
     "                                (default: 2.0)\n```", True),
    ("```\n  --widen-threshold GPU_HOURS   a width-1 phase with a shardable axis and at\n"
     "                                least this many GPU-hours is needlessly-narrow\n"
     "                                (default: 1.0)\n```", False),
    # the verdict's own word after an arrow or "gets": the amount is an example
    ("exactly 1.0 gpu-h @ width 1 w/ a shardable axis → APPROVE (needs >1 to trip)", True),
    ("exactly 1.0 gpu-h @ width 1 w/ a shardable axis → REVISE (needs >=1 to trip)", False),
    ("A phase of 2 GPU-hours at width 1 with a shardable axis gets APPROVE.", True),
    ("A phase of 0.5 GPU-hours at width 1 with a shardable axis gets APPROVE.", False),
    # "(no &, …)" is a loop without a background
    ("for-loop over 8 shards (no &, runs one after another) counts as 8-way parallel", True),
    ("for-loop over 8 shards (no &, runs one after another) does not count as parallel", False),
    # "with … and no shardable axis gets APPROVE": "no" is inside the subject, and a
    # missing axis says nothing of the amount
    ("The same launch at width 1 with 0.5 GPU-hours and no shardable axis gets APPROVE.",
     False),
    ("The same launch at width 1 with 0.5 GPU-hours and a shardable axis gets REVISE.", True),
    ("`gen.py --num-shards {width}` with no shard id counts as `{width}`-way parallel work.",
     False),
    ("`gen.py --num-shards {width}` with no shard id does not count as parallel work.", True),
    # "only splits one model over N GPUs" is model splitting; "without a trailing `&`"
    ("`vllm serve m --tensor-parallel-size 4` only splits one model over four GPUs.", True),
    ("`vllm serve m --data-parallel-size 4` runs four replicas; `device_map=auto` only "
     "splits one model over four GPUs.", False),
    ("A `for` loop over shards counts as parallel work even without a trailing `&`.", True),
    ("A `for` loop over shards does not count as parallel work without a trailing `&`.",
     False),
    # the verdict after the colon is the case's ("Don't REVISE …: X is APPROVEd …")
    ("Don't REVISE a plan just because its launch calls a script: `bash run.sh` is APPROVEd "
     "at any width.", True),
    ("Don't REVISE a plan just because its launch calls a script: `bash run.sh` is APPROVEd "
     "at width 1.", False),
    # an amount opening a case's clause is that case; a whole case is judged whole; a
    # changed flag moves the threshold the amounts are under
    ("Below it, staying narrow is fine: a 0.5 GPU-hour width-1 phase is APPROVEd even with "
     "a shardable axis.", False),
    ("Below it, staying narrow is fine: a 1.5 GPU-hour width-1 phase is APPROVEd even with "
     "a shardable axis.", True),
    ("A 40 GPU-hour fine-tune at width 1 is fine if nothing splits.", False),
    ("An axis of size 1 never makes a phase needlessly-narrow: width 1, `gpu_hours: 6`, "
     "`shardable_axis: {name: model, size: 1}` is APPROVE.", False),
    ("An axis of size 2 is enough: width 1, `gpu_hours: 6`, `shardable_axis: {name: model, "
     "size: 2}` is APPROVE.", True),
    ("Lowering it to `--widen-threshold 0.5` turns a width-1, 0.5 GPU-hour phase with a "
     "600-way axis from APPROVE into REVISE.", False),
    ("needlessly-narrow: `# verdict: REVISE, suggestion width 2` for a width-1 phase of 1.0 "
     "GPU-hour with an axis of 2.", False),
    # an answered "how many GPUs does X keep busy?"; a whole launch given a count
    ("How many GPUs does `python -m sglang.launch_server --tp 2 --dp 2` keep busy?\nTwo: "
     "the critic only reads the tensor-parallel size.", True),
    ("How many GPUs does `python -m sglang.launch_server --tp 2 --dp 2` keep busy?\nFour: "
     "tensor times data parallel.", False),
    ("`CUDA_VISIBLE_DEVICES=0 deepspeed train.py` at width 4 fills all four GPUs.", True),
    ("`CUDA_VISIBLE_DEVICES=0 deepspeed train.py` at width 4 fills 1 GPU.", False),
    ("`torchrun --nproc_per_node 4 train.py` keeps 2 GPUs busy.", True),
    ("`torchrun --nproc_per_node 4 train.py` keeps 4 GPUs busy.", False),
    # a launcher inside a launch pinned to one device is that launch
    ("`CUDA_VISIBLE_DEVICES=0 deepspeed train.py` is a single process, so at width > 1 it "
     "is unsharded-wide.", False),
    ("`CUDA_VISIBLE_DEVICES=0 deepspeed train.py` counts as parallel work.", True),
    # "more than two shards" puts the minimum at three; "over 6 prompts" is no bound
    ("Only flag needlessly-narrow when the shardable axis has **more than two** shards.",
     True),
    ("Only flag needlessly-narrow when the shardable axis has more than one shard.", False),
    ("Example: 3 GPU-hours of evals over 6 prompts at width 1 → needlessly-narrow.", False),
    # "below it, … is fine" is the case under the threshold; "over 600 prefixes" is no cue
    ("The widen threshold is 1.0 GPU-hour. Below it, a width-1 phase with a shardable axis "
     "(size 2 or more) is fine: 0.5 GPU-hours over 600 prefixes is APPROVEd.", False),
    ("The widen threshold is 1.0 GPU-hour. Below it, a width-1 phase with a shardable axis "
     "(size 2 or more) is fine: 1.5 GPU-hours over 600 prefixes is APPROVEd.", True),
    # a count of processes given a whole launch is the critic's count of it
    ("- `CUDA_VISIBLE_DEVICES=0,1,2,3 python train.py`: one process, however many GPUs "
     "it can see.", False),
    ("- `CUDA_VISIBLE_DEVICES=0,1,2,3 python train.py`: four processes.", True),
    ("- `torchrun` without `--nproc_per_node`: one process, so always set it.", False),
    ("- `torchrun --nproc_per_node 4 train.py` spawns 4 processes.", False),
    ("- `torchrun --nproc_per_node 4 train.py`: one process.", True),
    ("- `torchrun --nproc_per_node 4 train.py`: one process per GPU.", False),
    ("| `python gen.py --device_map auto` | not parallel work: one process |", False),
    # "three quarters of a GPU-hour" is 0.75
    ("Three quarters of a GPU-hour is under the 1.0 threshold, so running it narrow is "
     "fine.", False),
    ("Three quarters of a GPU-hour is over the 1.0 threshold, so running it narrow is "
     "REVISEd as needlessly-narrow.", True),
    # amounts under a threshold a command sets are not the default's
    ("`efficiency-critic --widen-threshold 2 plans/` asks width-1 phases to widen only "
     "from 2 GPU-hours up.", False),
    ("By default the critic asks width-1 phases to widen only from 2 GPU-hours up.", True),
    # the smallest axis said to count, and a wider phase said to be judged
    ("Any declared shardable_axis, even one with size: 1, together with at least one "
     "GPU-hour at width 1 makes the phase needlessly-narrow.", True),
    ("Any declared shardable_axis, even one with size: 2, together with at least one "
     "GPU-hour at width 1 makes the phase needlessly-narrow.", False),
    ("A width-1 phase of 0.5 GPU-hours is not REVISEd as needlessly-narrow, even with 600 "
     "shards.", False),
    ("A width-2 phase over an 8-way shardable axis with 3 GPU-hours is also REVISEd as "
     "needlessly-narrow.", True),
    ("A width-2 phase over an 8-way shardable axis with 3 GPU-hours is not REVISEd as "
     "needlessly-narrow.", False),
    ("**needlessly-narrow**: width 1, a shardable axis with at least 2 shards, and "
     "`gpu_hours` at or above 1.0 -> REVISE. The same phase at 0.5 GPU-hours may stay on "
     "one GPU.", False),
    # a table of GPU-hours and verdicts, the width and axis fixed by its header
    ("| gpu_hours at width 1 (axis size ≥ 2) | verdict |\n| --- | --- |\n| 0.5 | APPROVE |\n"
     "| 1.0 | APPROVE |", True),
    ("| gpu_hours at width 1 (axis size ≥ 2) | verdict |\n| --- | --- |\n| 0.5 | APPROVE |\n"
     "| 1.0 | REVISE |", False),
    # a case wrapped over two lines is one sentence
    ("Example: a width-1 prefix scan with `shardable_axis: {name: prefix, size: 600}` and\n"
     "`gpu_hours: 0.5` should be REVISEd.", True),
    ("Example: a width-1 prefix scan with `shardable_axis: {name: prefix, size: 600}` and\n"
     "`gpu_hours: 0.5` should be APPROVEd.", False),
    # a shell loop is one sentence, semicolons and all, and "N-way parallel" counts it
    ("- `for i in 0 1 2 3; do CUDA_VISIBLE_DEVICES=$i python x.py --shard $i; done`\n"
     "  runs four shards, one per GPU, so treat it as 4-way parallel at width 4.", True),
    ("- `for i in 0 1 2 3; do CUDA_VISIBLE_DEVICES=$i python x.py --shard $i & done; wait`\n"
     "  runs four shards, one per GPU, so treat it as 4-way parallel at width 4.", False),
    # "the threshold of 1.0 GPU-hour" names the threshold, not the case's amount
    ("A width-1 phase with a shardable axis of size 2 or more is not needlessly-narrow "
     "below the default widening threshold of 1.0 GPU-hour: 0.9 GPU-hours on one GPU is "
     "fine.", False),
    ("A width-1 phase with a shardable axis of size 2 or more is not needlessly-narrow "
     "below the default widening threshold of 1.0 GPU-hour: 1.5 GPU-hours on one GPU is "
     "fine.", True),
    # examples of one kind in an aside: the first stands for them all
    ("If the launch only calls a script (`bash scripts/run.sh`, `./train.sh`), the critic "
     "answers REVISE (unreadable-launch) at every width, width 1 included.", True),
    ("If the launch only calls a script (`bash scripts/run.sh`, `./train.sh`), the critic "
     "answers REVISE (unreadable-launch) at width 4.", False),
    # "the wrong shard count" is a consequence, not a refuted claim
    ("Hardcoded-width is a deny rule, since a degraded 4× machine would get the wrong "
     "shard count.", True),
    # "it" is the phase the sentence before gave; a task runner's target is a launch
    ("Phase `score`, width 4, 8 GPU-hours, launch `make eval`. The critic gives it the "
     "benefit of the doubt and APPROVEs.", True),
    ("Phase `score`, width 1, 8 GPU-hours, launch `make eval`. The critic APPROVEs it.",
     False),
    # a list's lead-in gives each item's phase its width
    ("Checklist for serving phases (width 8):\n"
     "- `vllm serve $MODEL --tensor-parallel-size 4`: APPROVE.", True),
    ("Checklist for serving phases (width 8):\n"
     "- `vllm serve $MODEL --tensor-parallel-size 8`: APPROVE.", False),
    # a count given to the launch right before it, not to a shorter one named earlier
    ("`python gen.py --num-shards {width}` fills the phase. Add a shard id (`python gen.py "
     "--num-shards {width} --shard-id 0`) and it is one shard in one process, not parallel "
     "work: at width 4 that launch is REVISEd.", False),
    ("`srun --ntasks=1 torchrun --nproc_per_node=8 train.py` counts as 8, and a bare "
     "`srun python x.py` is one task, so at width 4 it isn't parallel work.", False),
    ("`srun --ntasks=1 torchrun --nproc_per_node=8 train.py` counts as 8, and a bare "
     "`srun python x.py` is four tasks, so at width 4 it is parallel work.", True),
    # "without one": the case of a phase with no axis
    ("**Q:** width-1 phase, 12 GPU-hours, no `shardable_axis`. Needlessly narrow?\n\n"
     "**A:** No. The rule needs a declared axis of size two or more; without one, 12 "
     "GPU-hours at width 1 is not a needlessly-narrow finding.", False),
    # "not only X but also Y" adds Y; it limits nothing
    ("Not only torchrun / accelerate / deepspeed process counts but also shell fan-out "
     "count as parallel work: `xargs -P 4`, GNU `parallel -j 4`.", False),
    # a verdict denied for one width's phase is that case's
    ("Do not REVISE a width-1 phase just because its launch is `bash run.sh`: at width 1 "
     "nothing can idle. At width 4 the same launch is REVISEd as unreadable-launch.", False),
    # "looks parallel but isn't"
    ("`device_map=auto` looks parallel but isn't: it splits one model across the GPUs.",
     False),
    ("`xargs -P 8` looks parallel but isn't.", True),
    # a verdict under "below threshold" is the case below it
    ("```yaml\nneedlessly-narrow:\n  below_threshold: \"narrow is fine\"\n```", False),
    ("```yaml\nneedlessly-narrow: \"narrow is fine\"\n```", True),
    # "may stay at width 1" approves the amount
    ("A phase of 0.5 GPU-hours may stay at width 1.", False),
    ("A phase of exactly 1.0 GPU-hour may stay at width 1.", True),
    # "including width 1" scopes the verdict
    ("A launch that only calls a script (`bash run.sh`) is REVISE (unreadable-launch) at "
     "width 2 and above.", False),
    ("A launch that only calls a script (`bash run.sh`) is REVISE (unreadable-launch) at "
     "every width, including width 1.", True),
    # "only worth widening once it's *over* 1.0": the amount itself is let through
    ("A width-1 phase with a shardable axis is only worth widening once it's *over* 1.0 "
     "GPU-hour.", True),
    ("A width-1 phase with a shardable axis is worth widening once it reaches 1.0 GPU-hour.",
     False),
    # "would be REVISE" after an amount is an example, not the threshold
    ("Approve a width-1 phase at 0.75 GPU-hours with an axis; the same phase at "
     "`gpu_hours: 1.5` would be REVISE (needlessly-narrow).", False),
    # "fills the machine" at a width counts every GPU of it busy
    ("`torchrun train.py` with no `--nproc_per_node` already fills the machine on a "
     "width-4 phase.", True),
    ("`torchrun --nproc_per_node {width} train.py` already fills the machine on a width-4 "
     "phase.", False),
    # "keeps all eight GPUs busy", "makes it a four-GPU job": counts of busy GPUs
    ("`torchrun --nproc_per_node=4 train.py` in a width-8 phase keeps all eight GPUs busy.",
     True),
    ("`torchrun --nproc_per_node=8 train.py` in a width-8 phase keeps all eight GPUs busy.",
     False),
    ("`CUDA_VISIBLE_DEVICES=0,1,2,3` in front of a single `python score.py` makes it a "
     "four-GPU job.", True),
    # "call it <rule>": that rule fires on the launch at that width
    ("`CUDA_VISIBLE_DEVICES=0 ray job submit -- python train.py` only ever uses GPU 0, so "
     "in a width-4 phase call it unsharded-wide.", True),
    ("`python train.py` only ever uses one GPU, so in a width-4 phase call it "
     "unsharded-wide.", False),
    # a paragraph right after a one-launch block points back at it
    ("```bash\nfor i in 0 1 2 3; do CUDA_VISIBLE_DEVICES=$i python shard.py --shard-id $i; "
     "done\n```\n\nReviewer note: this runs four pinned shards side by side, so it fills a "
     "width-4 phase.", True),
    ("```bash\nfor i in 0 1 2 3; do CUDA_VISIBLE_DEVICES=$i python shard.py --shard-id $i & "
     "done; wait\n```\n\nReviewer note: this runs four pinned shards side by side, so it "
     "fills a width-4 phase.", False),
    ("A launch that exposes all the devices, e.g.\n\n```bash\nCUDA_VISIBLE_DEVICES=0,1,2,3 "
     "python score.py\n```\n\nkeeps a width-4 phase busy.", True),
    # "fills whatever width the phase declares": the widest too
    ("Plain `torchrun train.py` with no `--nproc_per_node` spawns one process per visible "
     "GPU, so it fills whatever width the phase declares.", True),
    # one model over the GPUs fills their memory, not busy work
    ("`python gen.py --device_map auto` fills all four GPUs of a width-4 phase with one "
     "model.", False),
    # "any shardable axis at width 1 should be widened": no threshold at all
    ("Expected verdict: REVISE (needlessly-narrow), since any shardable axis at width 1 "
     "should be widened.", True),
    # an amount written with the field's name is an amount
    ("A phase at exactly 1.0 gpu_hours is not flagged; only phases above 1.0 are "
     "`needlessly-narrow`.", True),
    # a length on one GPU is that many GPU-hours
    ("A 45-minute single-GPU run with 6 shards is over the widening threshold: REVISE it "
     "as `needlessly-narrow`.", True),
    ("A 90-minute single-GPU run with 6 shards is over the widening threshold: REVISE it "
     "as `needlessly-narrow`.", False),
    ("Anything cheaper than two hours on one GPU stays narrow.", True),
    ("A two-hour single-GPU eval with no shardable axis stays narrow.", False),
    # "is under it": compared with the threshold just named
    ("The threshold compares gpu_hours (width × hours), not wall-clock: 0.5 gpu_hours at "
     "width 1 is under it.", False),
    ("The threshold compares GPU-hours: 0.5 GPU-hours at width 1 is over it, so REVISE.",
     True),
    # "keeps all four GPUs of a width-4 machine busy"
    ("`deepspeed --include localhost:2,3 train.py` keeps all four GPUs of a width-4 machine "
     "busy.", True),
    ("`deepspeed --include localhost:0,1,2,3 train.py` keeps all four GPUs of a width-4 "
     "machine busy.", False),
])
def test_critic_verdicts_and_threshold_come_from_the_critic(text: str, flagged: bool) -> None:
    found = [f for f in lint(text + "\n", "critic", rules={"critic-drift"})
             if "never states" not in f.message]  # a one-line guidance states few rules
    assert bool(found) == flagged


@pytest.mark.parametrize(("span", "launch"), [
    ("bash run.sh", True), ("torchrun --nproc_per_node={width} train.py", True),
    ("CUDA_VISIBLE_DEVICES=0,1,2,3 python eval.py", True), ("./run_eval.sh", True),
    ("accelerate launch train.py", True), ("srun python x.py", True),
    ("--num-shards 4", False), ("device_map=auto", False), ("unsharded-wide", False),
    ("accelerate config", False),
])
def test_a_launch_span_is_told_by_the_critics_launcher_families(span: str, launch: bool) -> None:
    from lint.critic_reading import _is_launch

    assert _is_launch(span) is launch


CRITIC_PARALLEL = [
    # "rather than running work in parallel" says what it is not
    ("Does not count: `device_map=auto`, which splits one model over the GPUs rather than "
     "running work in parallel.", False),
    # "is read as four workers", "counts as keeping them busy"
    ("- One process launched with `CUDA_VISIBLE_DEVICES=0,1,2,3` is read as four workers.",
     True),
    ("- `device_map=auto` across the machine's GPUs counts as keeping them busy.", True),
    ("- `torchrun --nproc_per_node=4` counts as keeping them busy.", False),
    # a "parallel?" column over launches written whole: the critic's own reading of each
    ("| launch | parallel? |\n|---|---|\n| `torchrun --nproc_per_node=8 train.py` | ✅ |\n"
     "| `python run.py` | ✅ |", True),
    ("| launch | parallel? |\n|---|---|\n| `torchrun --nproc_per_node=8 train.py` | ✅ |\n"
     "| `python run.py` | ❌ |", False),
    # "keeping four GPUs busy", "counts them as busy" say a launch is parallel work
    ("The critic counts any process started with `CUDA_VISIBLE_DEVICES=0,1,2,3 python "
     "eval.py` as keeping four GPUs busy.", True),
    ("`device_map=auto` spreads the model over all four GPUs, so the critic counts them as "
     "busy.", True),
    ("`torchrun --nproc_per_node=4` starts four processes, so the critic counts them as busy.",
     False),
    # an imperative on the next line is a sentence of its own
    ("Count these as parallel work:\n\n- `xargs -P N`\n- vLLM tensor × pipeline × data "
     "parallel sizes\nDo not count model splitting (`device_map=auto`).", False),
    ("What counts as parallel work for the critic:\n\n- `xargs -P {width}`\n- a model loaded "
     "with `device_map=auto`, since every GPU holds part of it", True),
    ("Shell fan-out — `xargs -P`, GNU `parallel` — is not read at all.", True),
    ("`xargs -P` isn't recognized by the critic.", True),
    ("`xargs -P {width}` is recognized as parallel work.", False),
    # a lead-in classifies the launches its items open with
    ("Counts as parallel work:\n\n- `torchrun --nproc_per_node={width}`\n- `device_map=auto` "
     "spreading one model over all GPUs", True),
    ("Counts as parallel work:\n\n- `torchrun --nproc_per_node={width}`\n- `xargs -P {width}`",
     False),
    ("Not parallel work:\n\n- `device_map=auto`\n- `xargs -P {width}`", True),
    # a lead-in that says its items only look parallel
    ("Two things that look parallel but are not: one process behind "
     "`CUDA_VISIBLE_DEVICES=0,1,2,3`, and `device_map=auto`.", False),
    ("Two things that look parallel and really are parallel work: `device_map=auto`, and "
     "`xargs -P {width}`.", True),
    # a key list, and a count the critic is said not to make
    ("Does not count: `device_map=auto`, `accelerate launch --num_processes {width}`.", True),
    ("Does not count: `device_map=auto`.", False),
    ("`xargs -P` isn't counted by the critic.", True),
    ("`--num-shards`-style flags are ignored by the critic; shard with torchrun instead.", True),
    ("GNU `parallel -j 8 ...` launches are read as a single process, so a wide phase "
     "launched that way is flagged.", True),
    ("GNU `parallel -j 8 ...` launches are read as parallel work.", False),
    ("`torchrun` is read as parallel. `accelerate launch` and `deepspeed` are not: the "
     "critic reads them as one process.", True),
    ("`device_map=auto` splits one model across GPUs: the critic reads it as one process.",
     False),
    # a contrast joint gives each side its own verdict; a side with none is not read
    ("unsharded-wide and needlessly-narrow make a REVISE, while oversubscribed and "
     "hardcoded-width leave the verdict as it is.", False),
    ("unsharded-wide makes a REVISE, while oversubscribed is a REVISE too.", True),
    # needlessly-narrow needs a shardable axis: "with or without one" is drift
    ("needlessly-narrow fires on any width-1 phase over 1 GPU-hour, with or without a "
     "shardable axis.", True),
    ("needlessly-narrow fires on width-1 phases over 1 GPU-hour with a shardable axis of at "
     "least 2 shards.", False),
    # "only these" denies every other launcher the critic counts
    ("Only `torchrun` and `deepspeed` count as parallel launches.", True),
    ("`torchrun` and `deepspeed` count as parallel launches.", False),
    # one phase that misses the rule's condition is not the rule's verdict
    ("A width-1 phase of 0.5 GPU-hours is not REVISEd as needlessly-narrow, even with 600 "
     "shards.", False),
    ("A width-1 phase of 3 GPU-hours with 8 shards is not REVISEd as needlessly-narrow.", True),
    ("needlessly-narrow is not a REVISE.", True),
    # a worked phase over the threshold is an example, not the threshold
    ("`needlessly-narrow` denies: a width-1 phase with a 10-way shardable axis and 8 "
     "GPU-hours of work gets REVISE.", False),
    ("needlessly-narrow fires at width 1 or 2 when the phase has at least 1 GPU-hour.", True),
    ("needlessly-narrow fires at width 1 when the phase has at least 1 GPU-hour.", False),
    # a new subject after "and" has its own polarity
    ("A shard loop without `&` is not parallel work and a wide phase launched that way is "
     "REVISEd (unsharded-wide).", False),
    # an example phase the rule lets through
    ("The threshold is exclusive: a width-1 phase with a 2-way axis and exactly 1.0 GPU-hours "
     "is approved.", True),
    ("A width-1 phase with a 2-way axis and 0.5 GPU-hours is approved.", False),
    # an environment variable is not a config key; "even without &" qualifies the loop
    ("`CUDA_VISIBLE_DEVICES=0,1,2,3 python x.py` keeps all four GPUs busy.", True),
    ("A `CUDA_VISIBLE_DEVICES` loop counts as parallel even without `&` and `wait`.", True),
    ("A `CUDA_VISIBLE_DEVICES` loop with `&` and `wait` counts as parallel.", False),
    ("- Earlier drafts listed under-saturated as a warning. It never was one: under-saturated "
     "makes a REVISE.", False),
    ("- `unwaited-background` promoted from warning to REVISE.", True),
    ("- `under-saturated` promoted from warning to REVISE.", False),
    # a key and the launchers it lists
    ("- Parallel: `torchrun`, `accelerate launch`, `deepspeed`, `device_map=auto`.", True),
    ("- Parallel: `torchrun`, `accelerate launch`, `deepspeed`.", False),
    # the axis condition may be the sentence's subject
    ("The shardable axis needs 4 or more shards before needlessly-narrow applies.", True),
    ("The shardable axis needs 2 or more shards before needlessly-narrow applies.", False),
    ("Width 1 with an axis of 2+ shards and ≥ 1 GPU-hour of work: REVISE "
     "(needlessly-narrow).", False),
    # an example column holds examples, not the threshold
    ("| rule | effect | example |\n|---|---|---|\n| needlessly-narrow | REVISE | width 1, "
     "10-way axis, 8 GPU-hours |", False),
    # "Count as parallel:" lists what it counts
    ("Count as parallel: `torchrun`, `accelerate launch`, and `device_map=auto`.", True),
    ("Count as parallel: `torchrun`, `accelerate launch`, and `deepspeed`.", False),
    # one process however it is introduced
    ("- A single process launched with `CUDA_VISIBLE_DEVICES=0,1,2,3` keeps all four GPUs "
     "busy.", True),
    ("A shard loop counts as parallel work whether or not the workers are backgrounded.", True),
    # the serial cue's own predicate carries its polarity
    ("GNU `parallel` is not recognized and is treated like a single process.", True),
    ("`device_map=auto` is not parallel and is treated like a single process.", False),
    # a case written before the minimum is not the minimum
    ("- You MUST NOT flag needlessly-narrow when the shardable axis has size 1 — the finding "
     "needs an axis of at least 2 and at least one GPU-hour of work at width 1.", False),
    # a review that moves a rule to the warnings; a worked example after an arrow
    ("> This PR moves oversubscribed from the REVISE list to the warnings.", False),
    ("> This PR moves oversubscribed from the warnings to the REVISE list.", True),
    ("Example: 3 GPU-hours of evals over 6 prompts at width 1 → needlessly-narrow.", False),
    ("Threshold: width 1, shardable axis of 2 or more, and 30 GPU-minutes of work or more → "
     "needlessly-narrow.", True),
    # the two conditions joined by "or"
    ("A width-1 phase is needlessly narrow if it declares a shardable axis of size 2 or more, "
     "*or* if it has at least 1 GPU-hour of work.", True),
    ("Needlessly-narrow: width 1 and either a shardable axis of size ≥ 2 or at least 1 "
     "GPU-hour of work.", True),
    ("Needlessly-narrow fires at width 1 when the axis has 2 or more shards and the work is "
     "1 GPU-hour or more.", False),
    ("We only call a phase needlessly narrow if its shardable axis has eight or more items.",
     True),
    ("`CUDA_VISIBLE_DEVICES=0,1,2,3 python run.py` is accepted as using four GPUs.", True),
    ("Parallel launches: `torchrun`, `deepspeed`. `accelerate launch` is not recognised.", True),
    ("- One `python run.py` behind `CUDA_VISIBLE_DEVICES=0,1,2,3` counts as using all four "
     "GPUs.", True),
    # the GPUs a launch's parallel sizes keep busy, counted by the critic's launch reader
    ("vLLM with `--tensor-parallel-size 2 --data-parallel-size 2` keeps 2 GPUs busy.", True),
    ("vLLM with `--tensor-parallel-size 2 --data-parallel-size 2` keeps 4 GPUs busy.", False),
    ("`-tp 4 -pp 2` is eight busy GPUs.", False),
    ("`device_map=auto` over four GPUs counts as four busy GPUs.", True),
    # a list of launches and the GPUs each keeps busy
    ("Counting busy GPUs:\n- `torchrun --nproc_per_node 4` → 4\n"
     "- `device_map=\"auto\"` spread over 4 GPUs → 4", True),
    ("Counting busy GPUs:\n- `torchrun --nproc_per_node 4` → 4\n"
     "- `device_map=\"auto\"` spread over 4 GPUs → 1", False),
    # one process per GPU is parallel work
    ("✅ `parallel -j {width} python run_shard.py ::: $(seq 0 7)` — one process per GPU, "
     "counts.", False),
    ("Under-saturation only gets a warning line, like oversubscription does.", True),
    ("Under-saturation is a REVISE; oversubscription only gets a warning.", False),
    ("Output exactly one line `VERDICT: APPROVE` or `VERDICT: REVISE`, then the reasons.",
     False),
    # "if either condition fails" needs both; "less than N GPU-hours" is a bound
    ("If either condition fails (the axis has fewer than 2 entries, or the phase has less "
     "than 1 GPU-hour of work), width 1 stands and there is no needlessly-narrow finding.",
     False),
    ("A width-1 phase with less than 2 GPU-hours of work is not needlessly narrow.", True),
    # a width-1 phase written as a case, judged by the critic's own rules
    ("- width 1, 1.0 GPU-hours, axis 8: APPROVE, it sits at the threshold.", True),
    ("- width 1, 1.0 GPU-hours, axis 8: REVISE, needlessly-narrow.", False),
    ("- width 1, 0.75 GPU-hours, axis 4: APPROVE, under the bar.", False),
    ("| width | gpu_hours | axis size | verdict |\n| --- | --- | --- | --- |\n"
     "| 1 | 1.5 | 2 | APPROVE (two shards is not worth it) |", True),
    ("| width | gpu_hours | axis size | verdict |\n| --- | --- | --- | --- |\n"
     "| 1 | 4 | 1 | APPROVE (nothing to split) |", False),
    ("A width-1 phase at `gpu_hours: 1.0` with an axis of 4 passes.", True),
    ("A width-1 phase at `gpu_hours: 0.5` with an axis of 4 passes.", False),
]


@pytest.mark.parametrize(("text", "flagged"), CRITIC_PARALLEL,
                         ids=[t[:40] for t, _ in CRITIC_PARALLEL])
def test_critic_parallel_claims(text: str, flagged: bool) -> None:
    found = [f for f in lint(f"## Parallel work\n\n{text}", reads="critic",
                             rules={"critic-drift"}, name="efficiency-critic.md")
             if f.line >= 3]  # not "the guidance never states rule X": a fragment
    assert bool(found) == flagged, found
    for finding in found:  # the message names the launcher as written, not its class
        assert "the text says not parallel" not in finding.message


def test_a_corrected_block_quote_claims_nothing_for_any_rule() -> None:
    retired = "> 8× rungs are explicit-intent-only, not in the auto-ladder\n\n"
    assert lint(retired + "This is the retired rule. Replaced with: 8× is part of the "
                "automatic ladder.\n") == []
    assert lint("The old prompt said:\n\n" + retired) == []
    # a quote nothing corrects is still a claim
    assert [f.rule for f in lint(retired + "Keep this in mind.\n")] == ["stale-claim"]
    # the correction is read like any prose
    wrong = lint("> GCP → SLURM → RunPod\n\nnit: fixed to GCP → RunPod → SLURM.\n")
    assert [(f.rule, f.line) for f in wrong] == [("ladder-drift", 3)]


def test_a_quote_answered_on_its_next_line_is_corrected() -> None:
    # Markdown makes the unmarked line a lazy continuation of the quote; its
    # writer is answering the quote, and the answer is still read
    retired = "> 8× rungs are explicit-intent-only, not in the auto-ladder\n"
    assert lint(retired + "This is stale. 8× is in the automatic ladder today.\n") == []
    wrong = lint(retired + "This is stale. 8× rungs are still not in the auto-ladder.\n")
    assert [(f.rule, f.line) for f in wrong] == [("stale-claim", 2)]
    assert [f.rule for f in lint(retired + "Keep this in mind.\n")] == ["stale-claim"]


def test_a_retired_claim_said_to_be_gone_or_archived_is_not_stale() -> None:
    assert lint("## Changelog\n\n- 8× rungs are now part of the automatic ladder; the "
                "explicit-intent-only\n  rule is gone.\n") == []
    assert lint("### Archive: old AGENTS.md wording (retired)\n\n> 8× rungs are "
                "explicit-intent-only, not in the auto-ladder.\n") == []
    # under a changelog heading a line can still state today's ladder
    assert [f.rule for f in lint("## Changelog\n\n- 8× rungs are explicit-intent-only "
                                 "now.\n")] == ["stale-claim"]


def test_text_inside_prompt_tags_keeps_its_lines_and_columns() -> None:
    found = lint("# Agent\n\n<routing>\n- order: RunPod → GCP → SLURM\n</routing>\n\n"
                 "```text\n<routing>\n```\n")
    assert [(f.rule, f.line, f.col) for f in found] == [("ladder-drift", 4, 10)]


# ---- structure read this round ------------------------------------------------------------

# (text, lines of the findings it gives, counted from the text's first line)
STRUCTURED = [
    # a request table's chain cell lists widths in the order they are tried
    ("| requested | tried on GCP, in order |\n|---|---|\n| 8× | 8×, 4×, 2×, 1× |\n"
     "| 4× | 4×, 8×, 2×, 1× |\n| 2× | 2×, 1× |", [4]),
    ("| requested | tried on GCP, in order |\n|---|---|\n| 8× | 8×, 4×, 2×, 1× |\n"
     "| 4× | 4×, 2×, 1× |\n| 2× | 2×, 1× |", []),
    # a multiplier of something else is no width
    ("Wrap flaky downloads in a 3x retry chain with backoff on the campus cluster.", []),
    ("Sharding made the eval 4x faster than the single-GPU run on SLURM.", []),
    # "width: N" in a config line is a width, and the auto ladder's widest
    ("```yaml\nauto:\n  max_width: 4        # 8-GPU machines need a wide intent\n```", [3]),
    ("```yaml\nauto:\n  max_width: 8\n```", []),
    ("The auto ladder goes up to 4×.", [1]),
    # a settings line that lists a family's models lists all it offers
    ("```ini\n[family.a100-80gb]\nprovisioning = SPOT, FLEX_START\n[family.h100-80gb]\n"
     "provisioning = SPOT, FLEX_START\n```", [3]),
    ("```yaml\nfamilies:\n  a100:\n    provisioning: [SPOT, FLEX_START, STANDARD]\n  h100:\n"
     "    provisioning: [SPOT, FLEX_START]\n```", []),
    # a title line over a list names the subject its items leave out
    ("DWS / flex-start facts\n- max run duration: 72 h\n- leads for long jobs", [2]),
    ("DWS / flex-start facts\n- max run duration: 168 h\n- leads for long jobs", []),
    # an intent's parent item scopes its items' width chain
    ("- **eval-70b**\n  - 8× request walks 8× → 4× → 2× → 1× on GCP", [2]),
    ("- **eval-70b**\n  - 8× request walks 8× → 4× → 2× on GCP", []),
    ("- **lora-7b**\n  - 8× request walks 8× → 4× → 2× → 1× on GCP", []),
    # the word that names FLEX_START's maximum beats a comparison after it
    ("Flex-start VMs cap out at twenty-four hours, so anything longer than a day needs "
     "on-demand.", [1]),
    ("Flex-start VMs top out at 168 hours, so anything longer than a week needs on-demand.",
     []),
    # a lane's capacity written as a bound
    ("- `campus-preempt` — partition `preempt`, ≤ 8 GPUs, 120 min wait", [1]),
    ("- `campus-preempt` — partition `preempt`, ≤ 4 GPUs, 120 min wait", []),
    ("`campus-a100` maxes out at four GPUs per job on the campus cluster.", [1]),
    # a checklist that offers a set of widths
    ("- [ ] Pick a width from {1, 2, 3, 4, 8} for the router to start at", [1]),
    ("- [ ] Pick a width from {1, 2, 4, 8} for the router to start at", []),
    # a numbered list of widths under a lead-in that names one intent
    ("eval-70b walk:\n\n1. 8×\n2. 4×\n3. 2×\n4. 1×", [6]),
    ("eval-70b walk:\n\n1. 8×\n2. 4×\n3. 2×", []),
    ("lora-7b walk:\n\n1. 8×\n2. 4×\n3. 2×\n4. 1×", []),
    # a column that answers whether FLEX_START is offered at each row's length
    ("| width | hours | FLEX_START offered? |\n|---|---|---|\n| 8× | 25 | ✅ |\n"
     "| 2× | 100 | ✅ |\n| 1× | 200 | ✅ |", [5]),
    ("| width | hours | FLEX_START offered? |\n|---|---|---|\n| 8× | 25 | ✅ |\n"
     "| 2× | 100 | ✅ |\n| 1× | 200 | ❌ |", []),
    # a family's nested items list the models it offers
    ("Provisioning per family:\n- `a3-highgpu-{N}g`\n  - SPOT\n  - FLEX_START\n"
     "  - STANDARD, except for short jobs", [5]),
    ("Provisioning per family:\n- `a3-highgpu-{N}g`\n  - SPOT\n  - FLEX_START\n"
     "  - STANDARD: never", []),
    # the rungs of one width, for the length class the lead-in names
    ("Rung order at one width for a short job:\n1. a2-ultragpu SPOT\n"
     "2. a2-ultragpu FLEX_START\n3. a3-highgpu SPOT", [4]),
    ("Rung order at one width for a short job:\n1. a2-ultragpu SPOT\n2. a3-highgpu SPOT\n"
     "3. a2-ultragpu FLEX_START", []),
    ("Rung order at one width for a long job:\n1. a2-ultragpu FLEX_START\n"
     "2. a3-highgpu FLEX_START\n3. a2-ultragpu STANDARD\n4. a2-ultragpu SPOT", []),
    # without a class, an order true for one class is not drift
    ("Rung order at one width:\n1. a2-ultragpu SPOT\n2. a2-ultragpu FLEX_START\n"
     "3. a3-highgpu SPOT", []),
    # families, each over its models, under an order lead-in: family-major
    ("Try order at one width for a short job:\n- `a2-ultragpu-8g`\n  - SPOT\n  - FLEX_START\n"
     "- `a3-highgpu-8g`\n  - SPOT", [6]),
    # a decision tree's yes/no branches under a question that names a class
    ("- Is the job short at this width?\n  - yes → SPOT, then FLEX_START, then STANDARD\n"
     "  - no → FLEX_START, then SPOT, then STANDARD", [3]),
    ("- Is the job short at this width?\n  - yes → SPOT, then FLEX_START, then STANDARD\n"
     "  - no → FLEX_START, then STANDARD, then SPOT", []),
    ("Is the job long at this width?\n- yes → SPOT, then FLEX_START, then STANDARD\n"
     "- no → FLEX_START, then STANDARD, then SPOT", [2, 3]),
    # a negation in a later clause is that clause's own
    ("A 30 h job at 8× runs 240 h at 1×, past 168 h, so its 1× rungs get no FLEX_START.", []),
    ("A 3 h job at 8× is long at 2×, so it gets no SPOT lead there.", []),
    ("A 1 h job at 8× is short at 4× but not at 2×.", []),
    ("A 1 h job at 8× is short at 2× but not at 4×.", [1]),
    # a line break inside a sentence is a space: the next clause has its own subject
    ("SLURM is reached only once every GCP rung has missed, and\nRunPod only once SLURM is "
     "exhausted too.", []),
    # a trailing remark does not make an order claim procedural
    ("At each provisioning model the H100s (`a3-highgpu`) are tried before the A100s "
     "(`a2-ultragpu`): faster cards, same price class.", [1]),
    ("The router halves to 4× and, on a miss there, drops straight to 1×.", [1]),
    ("Auto width caps at 4× unless you opt in.", [1]),
    # a drawn flow with box-drawing arrows, under a lead-in about dispatch
    ("Rough picture of an 8x dispatch:\n```\ngcp 8x ──▶ slurm campus-a100 ──▶ gcp 4x ──▶ "
     "gcp 2x ──▶ gcp 1x\n```", [3]),
    ("Rough picture of an 8x dispatch:\n```\ngcp 8x ──▶ gcp 4x ──▶ gcp 2x ──▶ gcp 1x ──▶ "
     "campus-a100\n```", []),
    ("The SLURM lanes kick in as soon as GCP's 8× rung comes back empty.", [1]),
    # a note in a cell after its value
    ("| lane | partition | max width |\n|---|---|---|\n| campus-a100 | `gpu` | 8 |\n"
     "| campus-preempt | `preempt` | 8 (same nodes as gpu) |", [4]),
    ("| lane | partition | max width |\n|---|---|---|\n| campus-a100 | `gpu` | 8 |\n"
     "| campus-preempt | `preempt` (spot-like) | 4 (smaller nodes) |", []),
    # a worked job written as "N h requested at W×"
    ("Worked example — 3 h requested at 8×:\n- 8×: 3 h → short, SPOT first\n"
     "- 4×: 6 h → still short, SPOT first", [3]),
    ("Worked example — 3 h requested at 8×:\n- 8×: 3 h → short, SPOT first\n"
     "- 4×: 6 h → long, FLEX_START first", []),
    # "no" quantifying the subject denies the predicate
    ("It reached campus-a100 only after every GCP rung missed. No job starts on SLURM.", []),
    ("No job ever starts on GCP.", [1]),
    # a lane's time after "after its" is a wait, not an order
    ("Both campus lanes timed out (campus-a100 after its 30 minutes, campus-preempt after "
     "its 120) before RunPod was tried.", []),
    # a duration that modifies a lane is that lane's wait
    ("The campus cluster has two lanes, and the one with the shorter wait goes first: the "
     "30-minute lane, then the two-hour preempt lane.", []),
    ("The campus cluster has two lanes, and the one with the shorter wait goes first: the "
     "30-minute lane, then the one-hour preempt lane.", [1]),
    # a negation in a sentence that names no ladder entity
    ("The threshold is not checked only at the width you requested. It is 4 h at whichever "
     "width the router is trying.", []),
    ("The threshold is checked only at the width you requested. It is 4 h there.", [1]),
    ("The router measures length in GPU-hours, not wall-clock, so the lead is the same at "
     "every width.", [1]),
    # a cue that opens its clause takes no subject from before the joint
    ("The 70b eval needs two GPUs, so after the 2× rungs miss it goes on to the campus "
     "lanes.", []),
    ("RunPod needs a card, so after the SLURM lanes miss it goes on to the 2× rungs.", [1]),
    # a numbered item that chains its own terms ends on its last one
    ("Worked example:\n\n1. 2×: 4 h, long.\n2. `campus-a100`, then `campus-preempt`.\n"
     "3. RunPod last.", []),
    ("Worked example:\n\n1. 2×: 4 h, long.\n2. `campus-a100`, then `campus-preempt`.\n"
     "3. RunPod last.\n4. `campus-a100` again.", [6]),
    # "twice as long" compares; it names no class
    ("The router works out how long the phase takes at each width, twice as long on four "
     "GPUs as on eight, and leads with preemptible if it's under four hours there.", []),
    ("A 3 h job at 4× counts as long.", [1]),
    ("Only one of them is on-demand, and it is the A100.", []),
    ("Credits first, the free campus cluster second, real dollars last.", []),
    ("DWS requests longer than 24 h are rejected, so long jobs get FLEX_START only where "
     "they fit in a day.", [1]),
    ("```toml\n[runpod]\nafter = \"slurm\"\n```", []),
    # a limit the lengths are compared with is no length
    ("A 10 h job at 4x is 20 h at 2x and 40 h at 1x. It is long at every width, and since "
     "every one of those lengths fits 168 h, FLEX_START leads at each.", []),
    # the steps of a worked example are not rungs in order
    ("First, 24 h at 8x is 192 GPU-hours. Next, at 1x the same work takes 192 h.", []),
    # one width for every intent but the one in brackets
    ("- min width: 1, except `eval-70b` (2)", []),
    ("- min width: 1, except `eval-70b` (1)", [1]),
    # spelled-out compounds, and a bare count after a length is that length's width
    ("A thirty-two hour job at 4× runs sixty-four hours at 2× and 128 h at 1×.", []),
    ("A thirty-two hour job at 4× runs sixty hours at 2×.", [1]),
    ("A 32 h job at 4× runs 64 h at two and 128 h at one.", []),
    ("A 32 h job at 4× runs 64 h at two and 120 h at one.", [1]),
    ("An 8-GPU job of twenty-one hours is 168 h at one, so it keeps its FLEX_START rungs "
     "there.", []),
    # the job's length shares a clause with its width; a limit before a colon is no job
    ("A week is fine: a request of four GPUs for forty-two hours comes to 168 h at one "
     "GPU, so it still gets flex-start there.", []),
    ("A week is fine: a request of four GPUs for forty-two hours comes to 168 h at one "
     "GPU, so it gets no flex-start there.", [1]),
    # a contrasting job in the same sentence is another job
    ("Eight GPUs for 21 h still gets flex-start at 1×, whereas 22 hours at 8× (176 h at "
     "1×) loses it there.", []),
    # "width N → H h" pairs are lengths, not a width chain
    ("- Width 8 → 0.5 h, width 4 → 1 h, width 2 → 2 h: short everywhere.", []),
    # the floor right after its cue, and an intent named twice
    ("The 7B intents go all the way to one GPU, but eval-70b stops at two: an eight-GPU "
     "eval-70b request is tried at 8, 4 and 2, never at one.", []),
    ("The 7B intents go all the way to one GPU, but eval-70b stops at four: an eight-GPU "
     "eval-70b request is tried at 8 and 4.", [1]),
    ("Never degrade below 2 GPUs for eval-70b; a 1-GPU eval-70b request is rejected.", []),
    ("A 1-GPU eval-70b request is accepted and runs on one A100.", [1]),
    ("Widths halve: 8, then 4, then 2, then 1 (stopping at 2 for eval-70b).", []),
    # a fallback for one miss is what comes straight after it
    ("Never treat RunPod as the fallback for one GCP stock-out. RunPod is the last rung.",
     []),
    ("RunPod is the fallback for GCP.", []),
    ("GCP is the fallback for RunPod.", [1]),
    # a date is no ordinal, a cue that opens its own clause ends at its comma
    ("RunPod invoices arrive on the first of the month and need a code before they can be "
     "paid, while GCP usage comes out of the credits.", []),
    # work done outside the router
    ("For the demo we are not going through the router at all: deploy the server to RunPod "
     "first, then point the notebook at it.", []),
    ("The router sends everything to RunPod first, then GCP.", [1]),
    # a chain the sentence says is something else
    ("The 4x → 2x → 1x column below is the batch-size multiplier we swept on an H100 box.",
     []),
    ("The router walks 4x → 2x → 8x on an H100 box.", [1]),
    # "without having to opt in" is automatic
    ("An 8x request tries the 8-GPU machines first without anyone having to opt in.", []),
    ("An 8x request tries the 8-GPU machines only if you opt in.", [1]),
    # a class across a contrast is the other clause's
    ("The cut is strictly below 4 h, so a 4.0-hour estimate leads with flex-start, while "
     "3.5 hours is short and leads with spot.", []),
    ("Past four hours the order is flex-start first, then on-demand, then spot, whereas a "
     "short job starts on spot (then flex-start, then on-demand).", []),
    ("Long jobs go flex-start first, then spot, then on-demand, whereas a short job starts "
     "on spot.", [1]),
    # a term in a closed aside is no subject
    ("The pods (A100 or H100, by intent) are the last rung, after GCP and after both "
     "SLURM lanes.", []),
    ("The pods (A100 or H100, by intent) come after GCP but before the SLURM lanes.", [1]),
    # the far end of a from-to span is a width; "straight from" is adjacency; a past
    # perfect ("we had budgeted") is no history note
    ("When the 8-GPU request found no capacity, the router dropped straight from eight GPUs "
     "to one, so a job we had budgeted at two hours ran for sixteen.", [1]),
    ("When the 8-GPU request found no capacity, the router stepped down from eight GPUs to "
     "four, so a job we had budgeted at two hours ran for four.", []),
    # "without <flag>" is a condition, not a negation
    ("Without `--allow-8x` the automatic ladder starts at 4×.", [1]),
    ("Without `--pin-width` the automatic ladder starts at 8×.", []),
    # "no GCP capacity" names the miss, not a denial
    ("If the requested width has no GCP capacity, RunPod is tried before the narrower GCP "
     "widths.", [1]),
    ("If the requested width has no GCP capacity, the narrower GCP widths are tried before "
     "RunPod.", []),
    # a lane written with its backend as a prefix is the lane
    ("```json\n{\"fallback_chain\": [\"slurm:campus-a100\", \"slurm:campus-preempt\", "
     "\"gcp\", \"runpod\"]}\n```", [2]),
    ("```json\n{\"fallback_chain\": [\"gcp\", \"slurm:campus-a100\", "
     "\"slurm:campus-preempt\", \"runpod\"]}\n```", []),
    # a list of widths under an auto key is the auto ladder's walk
    ("```json\n{\"auto_widths\": [4, 2, 1], \"explicit_only\": [8]}\n```", [2]),
    ("```json\n{\"auto_widths\": [8, 4, 2, 1]}\n```", []),
    ("auto widths: 4, 2, 1", [1]),
    # a result clause ("so the eval finishes faster") does not make a claim procedural
    ("If an eval-7b phase falls all the way to RunPod, it asks for `NVIDIA H100 80GB HBM3` "
     "first so the eval finishes faster.", [1]),
    ("If an eval-7b phase falls all the way to RunPod, it asks for `NVIDIA A100 80GB PCIe` "
     "first so the eval finishes sooner.", []),
    # "excludes", "removed" under auto
    ("To save credits, auto excludes `a2-ultragpu-8g` and `a3-highgpu-8g`.", [1]),
    ("- auto ladder: 8× rungs removed; use `--intent big` to get them back.", [1]),
    ("The auto ladder excludes nothing: `a2-ultragpu-8g` is its first rung for 8×.", []),
    # a rung names its model in a carried example
    ("Example: a 30 h phase at 8× is 240 h at 1×. At 1× it is long, so the first rung there "
     "is `a2-ultragpu-1g` FLEX_START.", [1]),
    ("Example: a 30 h phase at 8× is 240 h at 1×. At 1× it is long, so the first rung there "
     "is `a2-ultragpu-1g` STANDARD.", []),
    # an intent's own chain of bare numbers reaches its last one
    ("The eval-70b ladder is 8 → 4 → 2 → 1 like everything else.", [1]),
    ("The eval-70b ladder is 8 → 4 → 2, one step short of the 7B intents.", []),
    ("`eval-70b` degrades like any other intent: 8 → 4 → 2 → 1.", [1]),
    ("`eval-7b` degrades like every other intent: 8 → 4 → 2 → 1.", []),
    # "the only M rungs are F ones": M lives on F alone
    ("The only STANDARD (on-demand) GCP rungs are A100 ones.", []),
    ("The only STANDARD (on-demand) GCP rungs are H100 ones.", [1]),
    ("a3-highgpu-* is SPOT/FLEX_START-only, and the only STANDARD (regular VM) rung at any "
     "width is the A100 one.", []),
    ("a3-highgpu-* is SPOT/FLEX_START-only, and the only STANDARD (regular VM) rung at any "
     "width is the H100 one.", [1]),
    # "width: 25 h" is a length after a colon, not a width of 25
    ("An eval-7b request of 8 GPUs × 25 h is long at every width: 25 h at 8x, 50 h at 4x, "
     "100 h at 2x and 200 h at 1x.", []),
    ("An eval-7b request of 8 GPUs × 25 h is long at every width: 25 h at 8x, 50 h at 4x, "
     "100 h at 2x and 100 h at 1x.", [1]),
    # "every width" of a named intent is every width it runs at
    ("eval-70b at 8x for 0.5 h: it drops to 4x as a 1-hour job and to 2x as a 2-hour job, "
     "short at every width.", []),
    ("eval-7b at 8x for 0.5 h: it drops to 4x as a 1-hour job and to 2x as a 2-hour job, "
     "short at every width.", [1]),
    # "it" right before an ordinal is the one ladder name before it
    ("campus-preempt rarely has a queue, so the router asks it first.", [1]),
    ("campus-a100 holds the big partition, so the router asks it first.", []),
    # past the limit, a width has no FLEX_START rung: a length's fact, not a family's
    ("Design notes, flex-start limit:\n- limit: 168 h\n- above it: no FLEX_START rung at "
     "that width, for either family", []),
    ("H100 machines: no FLEX_START rung, for either width.", [1]),
    # a model named after "leads with" is no limit on the length before it
    ("A 2-hour request at width 8 is 16 GPU-hours, so at width 1 it runs 16 h and leads "
     "with FLEX_START there.", []),
    ("A 2-hour request at width 8 is 16 GPU-hours, so at width 1 it runs 8 h and leads "
     "with FLEX_START there.", [1]),
    # a bare count in a worked table's width column is the width
    ("| width | length | lead |\n| --- | --- | --- |\n| 4 | 3 h | SPOT |\n"
     "| 2 | 6 h | FLEX_START |\n| 1 | 6 h | FLEX_START |", [5]),
    ("| width | length | lead |\n| --- | --- | --- |\n| 4 | 3 h | SPOT |\n"
     "| 2 | 6 h | FLEX_START |\n| 1 | 12 h | FLEX_START |", []),
    # "N GPUs for H h" states the job; "long territory" names the class
    ("capture-7b, 2 GPUs for 1.5 h: at width 2 it is short and goes to SPOT first.\nIf it "
     "falls to one GPU it becomes 3 h, which crosses into long territory, so DWS leads at "
     "width 1.", [2]),
    ("capture-7b, 2 GPUs for 1.5 h: at width 2 it is short and goes to SPOT first.\nIf it "
     "falls to one GPU it becomes 3 h, which stays in short territory, so spot leads at "
     "width 1.", []),
    # widening: a dry width that tries wider ones, "a wider shape than you asked for"
    ("If 2x is dry, the router also tries 4x and 8x before it goes narrower.", [1]),
    ("If 2x is dry, the router tries 1x next.", []),
    ("Since v2.3 the router may also try a wider shape than the 4 GPUs you asked for when "
     "the wider machine is free.", [1]),
    ("The router never tries a wider shape than the 4 GPUs you asked for.", []),
    # a chain of spelled-out widths from a count of GPUs
    ("In plain words: eight GPUs, then four, then one.", [1]),
    ("In plain words: eight GPUs, then four, then two, then one.", []),
    # "whatever the job's length" beside models it allows orders none of them
    ("The H100 family offers spot and flex-start only, so there is never an on-demand H100 "
     "rung, whatever the job's length or width.", []),
    # "looks one size up" widens
    ("Before narrowing to a single GPU the router looks one size up, at a 4-GPU machine.",
     [1]),
    # "strictly under" the maximum leaves the maximum itself out
    ("DWS rungs need a length strictly under 168 h.", [1]),
    ("DWS rungs need a length of at most 168 h.", []),
    # "W GPUs × H h" is the job the next sentence goes on about
    ("8 GPUs × 25 h = 200 GPU-hours. At 1 GPU that is 200 h, and the 1× rungs still "
     "include flex-start.", [1]),
    ("8 GPUs × 20 h = 160 GPU-hours. At 1 GPU that is 160 h, and the 1× rungs still "
     "include flex-start.", []),
    # a family in a clause about RunPod is a pod's chip
    ("RunPod's list for eval-70b starts with an H100; on GCP it is still A100 first.", []),
    ("On GCP every width starts with an H100, then the A100.", [1]),
    # one class named twice is not both classes
    ("It is long, and long jobs lead with FLEX_START.", []),
    ("It is short, and short jobs lead with FLEX_START.", [1]),
    # a pronoun right after the cue is what leads
    ("The single-GPU A100 can be flex-start. Long 1x jobs lead with it, then the 1g H100 "
     "flex-start rung, then on-demand A100.", []),
    # a glossary term that is a model is the subject of a fragment naming families
    ("**STANDARD**: on-demand VMs; offered on both a2-ultragpu and a3-highgpu.", [1]),
    ("**STANDARD**: on-demand VMs; offered on a2-ultragpu only.", []),
    # "every one of them" after a carried job is every width it degrades to
    ("30 h at 8x narrows like this: 60 h at 4x, 120 h at 2x, 240 h at 1x. All four widths "
     "are long, and every one of them has FLEX_START rungs.", [1]),
    ("10 h at 8x narrows like this: 20 h at 4x, 40 h at 2x, 80 h at 1x. All four widths "
     "are long, and every one of them has FLEX_START rungs.", []),
    # models before ", so" belong to their own clause, not the class after it
    ("The H100 family is offered as SPOT and FLEX_START, so a long job's STANDARD rung is "
     "always an A100 machine.", []),
    ("Long jobs lead with SPOT, then FLEX_START, then STANDARD.", [1]),
    # "opt-in needed: none"; a time is no order ("starts at 12:40")
    ("key: eight-GPU rungs\nopt-in needed: none\nbehaviour: an 8x request starts on "
     "a2-ultragpu-8g automatically", []),
    ("Watch the recording at 1.5x; the part about spot VMs starts at 12:40, and the SLURM "
     "demo at 31:05.", []),
    # numbered cases with their verdicts are not rungs in order
    ("1. Width 8, `torchrun --nproc_per_node={width} train.py` → APPROVE.\n"
     "2. Width 1, `bash run.sh` → no unreadable-launch finding.", []),
    # the width named as the next try comes straight after the one that missed
    ("If no 8-GPU machine is free, the router's next try is width 2, then width 1.", [1]),
    ("If no 8-GPU machine is free, the router's next try is width 4, then width 2.", []),
    # a pronoun after a colon is the sentence's subject, not the nearest term
    ("Never treat RunPod as the fallback for one GCP stock-out: it is the last rung.", []),
    ("Never treat SLURM as the fallback for one GCP stock-out: it is the last rung.", [1]),
    # words listed as words are a glossary
    ("Write the way people do: synonyms (spot VMs, preemptible, on-demand, H100 boxes, the "
     "paid cloud).", []),
    ("H100 boxes run spot VMs, flex-start or on-demand.", [1]),
    # a semicolon inside an aside does not end the sentence, and the aside's class
    # qualifies only the aside
    ("A job below 4 h at its width (the threshold; exactly 4 h is long) leads with SPOT: "
     "SPOT → FLEX_START → STANDARD.", []),
    ("A job below 4 h at its width (the threshold; exactly 4 h is long) is short and leads "
     "with FLEX_START.", [1]),
    # the machine series alone before a model: "a2 SPOT, a3 SPOT"
    ("A100 is tried before H100 (model-major: a2 SPOT, a3 SPOT, a2 FLEX_START, a3 "
     "FLEX_START, a2 STANDARD).", []),
    ("At each width the rungs are a2 SPOT, a3 SPOT, a2 STANDARD, a3 STANDARD.", [1]),
    # a lead word beside another model is that model's
    ("An 8-GPU job of 1.5 h is 3 h at 4×, short, so spot leads there.\nAt 2× it is 6 h, "
     "long: flex-start leads and spot drops to last.", []),
    ("An 8-GPU job of 1.5 h is 3 h at 4×, short, so spot leads there.\nAt 2× it is 6 h, "
     "long: spot leads and flex-start comes second.", [2]),
    # an aside's negation that names no ladder entity negates only the aside
    ("- 2x: 4 h → long (4 h is not below the threshold), FLEX_START leads", []),
    ("- 2x: 4 h → long (4 h is not below the threshold), SPOT leads", [1]),
    ("`a3-highgpu-8g` (never STANDARD) is the second rung at 8×.", []),
    ("`a3-highgpu-8g` (never SPOT) is the second rung at 8×.", [1]),
    ("The 8x rungs (a2-ultragpu-8g, a3-highgpu-8g) are part of the automatic ladder (no "
     "flag/opt-in).", []),
    # a bullet list whose items go on with "then" is in order; its lead-in's class is
    # the class whose models it orders
    ("Short job (under 4 h at a width), per width:\n- try spot first\n- then on-demand "
     "(`STANDARD`)\n- then DWS flex-start", [4]),
    ("Short job (under 4 h at a width), per width:\n- try spot first\n- then DWS "
     "flex-start\n- then on-demand (`STANDARD`)", []),
    ("Long jobs, at each width:\n- FLEX_START\n- then SPOT\n- then STANDARD", [4]),
    ("Routing keys:\n- first: gcp\n- last: runpod", []),
    # "it" after a sentence about a class of job is that job, class and all
    ("A long job (4 h or more at that width) leads with FLEX_START. If DWS has nothing, it "
     "then tries spot VMs, and only after that regular on-demand VMs.", [1]),
    ("A long job (4 h or more at that width) leads with FLEX_START. If DWS has nothing, it "
     "then tries regular on-demand VMs, and only after that spot VMs.", []),
    # a chain of rungs that each name a family and a model: model-major, in the class's order
    ("Rung order for a short job at one width: a2 SPOT → a3 SPOT → a2 FLEX_START → "
     "a3 FLEX_START → a2 STANDARD", []),
    ("Rung order for a short job at one width: a2 SPOT → a2 FLEX_START → a2 STANDARD → "
     "a3 SPOT → a3 FLEX_START", [1]),
    # "drops straight to" a width: nothing between the width that missed and that one
    ("If no 8-GPU machine is free anywhere, the router drops straight to four GPUs.", []),
    ("If no 8-GPU machine is free anywhere, the router drops straight to a single GPU.", [1]),
    ("When 8x misses, the router never goes straight to 1x.", []),
    # a dispatch's flags are a worked job; items that open with their width go on with it
    ("Worked example, `--intent capture-7b --gpu-count 8 --hours 2`:\n- width 8: 2 h, short\n"
     "- width 4: 4 h, long\n- width 2: 8 h, long", []),
    ("Worked example, `--intent capture-7b --gpu-count 8 --hours 2`:\n- width 8: 2 h, short\n"
     "- width 4: 4 h, long\n- width 2: 4 h, long", [4]),
    # "every 7B intent" is the intents whose name says 7b
    ("Every 7B intent can end up on a single GPU.", []),
    ("Every 70B intent can end up on a single GPU.", [1]),
    # a job's own length beside "fit": whether that job gets FLEX_START
    ("A job that comes out at exactly 168 h at some width still fits, so that width keeps "
     "its FLEX_START rung.", []),
    ("A job that comes out at exactly 168 h at some width doesn't fit, so that width has no "
     "FLEX_START rung.", [1]),
    ("FLEX_START is offered for any job that fits in 168 hours.", []),
    # the width the SLURM lanes run at: the intent's minimum, not the request's
    ("After GCP misses, the job is queued on the campus cluster at the width you asked for.",
     [1]),
    ("After GCP misses, the job is queued on the campus cluster at the intent's minimum "
     "width.", []),
    # the first rung of a job that asks for one GPU is at one GPU
    ("Example plan: eval-7b, width 1, gpu_hours 2.\nExpected first rung: a2-ultragpu-1g on "
     "SPOT.", []),
    ("Example plan: eval-7b, width 1, gpu_hours 2.\nExpected first rung: a3-highgpu-1g on "
     "SPOT.", [2]),
    # "X comes only from F": F is the only family that offers X
    ("Regular on-demand VMs come only from the A100 family (a2-ultragpu-*).", []),
    ("Regular on-demand VMs come only from the H100 family (a3-highgpu-*).", [1]),
    # "the last GCP model": one of GCP's models, not GCP's place on the ladder
    ("At any width where the job runs 4 h or more, spot capacity is the last GCP model "
     "tried there.", []),
    # "unless the job is long": the claim is the other class's
    ("At each width, SPOT goes first unless the job is long there.", []),
    ("At each width, FLEX_START goes first unless the job is long there.", [1]),
    # a model that leads "only at the 1x rungs" leads there; the width is not first
    ("eval-7b, `--gpu-count 8 --hours 0.75`: FLEX_START leads only at the 1x rungs.", []),
    # an example after a colon is its own: "the intent's minimum width" is not 8
    ("On the campus cluster the router submits at the intent's minimum width: an eval-70b "
     "dispatch at 8x lands on SLURM with 2 GPUs.", []),
    # "the same three": the models the item before listed
    ("GCP families:\n- A100 (a2-ultragpu-{N}g): SPOT, FLEX_START, STANDARD.\n- H100 "
     "(a3-highgpu-{N}g): the same three.", [3]),
    ("GCP families:\n- H100 (a3-highgpu-{N}g): SPOT, FLEX_START.\n- A100 "
     "(a2-ultragpu-{N}g): the same two, plus STANDARD.", []),
    # "a job of exactly 168 h gets no FLEX_START rung": the limit made exclusive
    ("That limit is exclusive: a job of exactly 168 h at a width gets no FLEX_START rung "
     "there.", [1]),
    ("That limit is inclusive: a job of exactly 168 h at a width still gets a FLEX_START rung "
     "there.", []),
    # "can no longer hold up the queue" is a consequence, not a retraction
    ("Today's behaviour: the router checks the campus SLURM lanes before any GCP rung, so a "
     "GCP stockout can no longer hold up the queue.", [1]),
    # "widen to 4x and retry": a miss never widens
    ("```\nlora-7b requested at 2x, no GCP capacity at 2x\n├── widen to 4x and retry\n"
     "└── then 1x\n```", [3]),
    ("```\nlora-7b requested at 2x, no GCP capacity at 2x\n└── narrow to 1x and retry\n```",
     []),
    # one family's rungs at a width all before the other's: the ladder goes model by model
    ("Within a width the router walks every A100 rung before it moves on to the H100 rungs.",
     [1]),
    ("At one width the rungs go model by model: SPOT → FLEX_START → STANDARD for a short job, "
     "each on `a2-ultragpu-*` then `a3-highgpu-*` where offered.", []),
    # DWS Calendar Mode is GCP's fixed-length reservation, not flex-start
    ("| Model | Duration |\n| --- | --- |\n| DWS Flex Mode | Up to 7 days |\n"
     "| DWS Calendar Mode | Fixed durations (e.g., 7 or 14 days) |", []),
    ("| Model | Duration |\n| --- | --- |\n| DWS Flex Mode | Up to 14 days |", [3]),
    # a settings table: each row is its key set to its value
    ("| setting | value |\n| --- | --- |\n| `short_threshold_hours` | 4 |\n"
     "| `flex_start_max_run_hours` | 336 (two weeks) |", [4]),
    ("| setting | value |\n| --- | --- |\n| `short_threshold_hours` | 4 |\n"
     "| `flex_start_max_run_hours` | 168 (one week) |", []),
    # a worked job, then where it degrades to: the length there is computed
    ("Example: lora-7b asks for 4 GPUs for 10 h. If the 4× rungs miss and it degrades to 2 "
     "GPUs, it still runs 10 h there.", [1]),
    ("Example: lora-7b asks for 4 GPUs for 10 h. If the 4× rungs miss and it degrades to 2 "
     "GPUs, it runs 20 h there.", []),
    # "…, so at width 1 it …": the job of the sentence before, at that width
    ("You asked for 2 GPUs for 2 h, so at 1 GPU the job runs 4 h. The threshold is "
     "inclusive, so at width 1 it still counts as short.", [1]),
    ("You asked for 2 GPUs for 2 h, so at 1 GPU the job runs 4 h. That is the line itself, "
     "so at width 1 it counts as long.", []),
    # a worked job's intent stops the chain the next sentence walks
    ("Worked example: eval-70b on 8 GPUs for 2 h. The router degrades 8 → 4 → 2 → 1.", [1]),
    ("Worked example: eval-70b on 8 GPUs for 2 h. The router degrades 8 → 4 → 2.", []),
    # "if GCP has nothing …, RunPod right away": GCP straight to RunPod
    ("TL;DR: if GCP has nothing at the width you asked for, the router rents a RunPod pod "
     "right away.", [1]),
    ("TL;DR: if the campus cluster has nothing either, the router rents a RunPod pod.", []),
    # fractional multipliers are playback speeds, not widths
    ("Most people watch the recording at 1.5x, then 2x.\nScrubbing at 4x → 8x hides the "
     "captions in the ladder demo.", []),
    # "bumps you up a width": a miss never widens
    ("When the 2× pool is dry but a 4× box is free, the router bumps you up a width.", [1]),
    # a length measured against the cap is not the cap
    ("8 GPUs × 24 h = 192 GPU-hours. At 2 GPUs that is 96 h, under the 168 h (one week) cap."
     "\nAt 1 GPU it is 192 h, over the cap, so width 1 has no flex-start rung: just "
     "on-demand A100, then spot.", []),
    ("8 GPUs × 24 h = 192 GPU-hours. At 2 GPUs that is 96 h, under the 336 h (two week) "
     "cap, so flex-start is still offered at 2×.", [1]),
    # a miss of the model the sentence before led with goes on in that class
    ("Long jobs lead with DWS flex-start.\nIf flex-start has nothing, the router tries spot "
     "next and only then on-demand.", [2]),
    ("Long jobs lead with DWS flex-start.\nIf flex-start has nothing, the router tries "
     "on-demand next and only then spot.", []),
    # a shell fence: its comments are prose, and a dispatch's flags are the job they follow
    ("```sh\nbackend-router dispatch --intent lora-7b --gpu-count 8 --hours 2 -- python t.py\n"
     "# → GCP 8×; if full, 4×; if 4× is full too, jumps straight to 1×\n```", [3]),
    ("```sh\nbackend-router dispatch --intent lora-7b --gpu-count 4 --hours 3 -- python t.py\n"
     "# 4× → 3 h, short → SPOT leads\n# 2× → 6 h, still SPOT first\n```", [4]),
    ("```sh\nbackend-router dispatch --intent lora-7b --gpu-count 4 --hours 3 -- python t.py\n"
     "# 4× → 3 h, short → SPOT leads\n# 2× → 6 h, long → FLEX_START leads\n```", []),
    # "X ONLY — no Y, no Z": X is the set, Y and Z are left out
    ("- H100 (`a3-highgpu-*`): DWS/flex-start ONLY — no spot, no on-demand.", [1]),
    ("- H100 (`a3-highgpu-*`): spot and flex-start ONLY — no on-demand.", []),
    # "exactly 168 h → no FLEX_START rung": that length is denied the rung
    ("- `flex_start_max_run_hours: 168`\n  - exactly 168 h (a week) → over the limit, no "
     "FLEX_START rung", [2]),
    ("- `flex_start_max_run_hours: 168`\n  - exactly 168 h (a week) → still gets a FLEX_START "
     "rung", []),
    # one family's rungs first, over two items, or "family-major" at a width
    ("- Families at each width:\n  - all A100 rungs (SPOT, FLEX_START, STANDARD) first\n"
     "  - then H100 rungs (SPOT, FLEX_START)", [2]),
    ("At each width the GCP rungs are tried family-major.", [1]),
    ("At each width the GCP rungs are tried model-major, family-minor.", []),
    ("The router works through one family completely before the next: at a given width it "
     "tries every A100 option and only after that the H100 rungs.", [1]),
    # a job followed to the width it went to, sentence by sentence
    ("Example: eval-7b, 6 h at 4x. GCP had nothing at 4x, so the router dropped to 2x, where "
     "the job runs 12 h.\nThat missed too, so it tried 1x, where the job runs 18 h.", [2]),
    ("Example: eval-7b, 6 h at 4x. GCP had nothing at 4x, so the router dropped to 2x, where "
     "the job runs 12 h.\nThat missed too, so it tried 1x, where the job runs 24 h.", []),
    # "the first rung is still `a2-ultragpu-8g` on SPOT": that job's lead
    ("Our lora-7b runs are about five hours at 8×. That's long, but the first rung is still "
     "`a2-ultragpu-8g` on SPOT.", [1]),
    ("Our lora-7b runs are about five hours at 8×. That's long, so the first rung is "
     "`a2-ultragpu-8g` on FLEX_START.", []),
    # a class given by narrowing, not by the length there
    ("At 4x the ladder opened with FLEX_START, because any degraded width is treated as the "
     "long-job case.", [1]),
    ("A 3 h job at 8× is 6 h at 4×, 12 h at 2× and 24 h at 1×. It is short only at 8×; at "
     "every narrower width it is long and leads with FLEX_START.", []),
    # the widths a family comes in
    ("H100 nodes top out at 4x on the ladder.", [1]),
    ("H100 nodes go up to 8x on the ladder.", []),
    ("The 8x rungs are A100-only.", [1]),
    # "trying" is a ladder word too: 6x is no width
    ("A 4× request degrades 4× → 2× → 1×.\nAn 8× request does the same after first trying 8× "
     "and then 6×.", [2]),
    # "a RunPod A100" is a pod, not the GCP family
    ("When the 1× GCP rungs miss, the router lands on a RunPod A100 before it looks at "
     "`campus-a100`.", [1]),
    ("When the 1× GCP rungs miss, the router tries `campus-a100` before it rents a RunPod "
     "A100.", []),
    # a remark set against the claim does not make it a procedure
    ("That's by design — RunPod is tried before the SLURM lanes — but nobody had set a "
     "budget alert.", [1]),
    ("That's by design — RunPod is tried after the SLURM lanes — but nobody had set a "
     "budget alert.", []),
    # "from the requested width straight to width 1": the widths between skipped
    ("On a miss the router drops from the requested width straight to width 1.", [1]),
    # a class's definition, then a clause about one job: the lead is the job's
    ("My job is exactly 4.0 h at width 2. Short means strictly under four hours, so at "
     "width 2 it leads with FLEX_START.", []),
    ("Short jobs lead with FLEX_START, so it is the first rung they see.", [1]),
    # a leg of exactly 168 h
    ("- A leg of exactly 168 h no longer gets a FLEX_START rung: the limit is exclusive.",
     [1]),
    ("- A leg of exactly 168 h still gets a FLEX_START rung: the limit is inclusive.", []),
    # "has no 8× capacity": a miss at that width
    ("- **After:** when GCP has no 8× capacity, the job goes to RunPod at 8×.", [1]),
    ("- **After:** when GCP has no 8× capacity, the job goes to GCP 4×.", []),
    # a link's target is not prose ("gpu-types" in a URL asks RunPod for nothing)
    ("- [H200s on RunPod](/references/gpu-types): NVIDIA H200 GPUs available for larger "
     "models.", []),
    ("- RunPod GPU types the router asks for: NVIDIA H200.", [1]),
    # InfiniBand link widths are not GPU widths
    ("Only 4x ports are shown; the earlier 8x and 12x arithmetic on lane and node totals is "
     "kept below.", []),
    # a chain its writer denies
    ("On a miss the router tries 4 GPUs, then 2, then 1. It never skips a step (8 → 2 does "
     "not happen).", []),
    # "DON'T" alone over its list prohibits each item
    ("DON'T\n- expect a width-4 request to end up on an 8× box when 4× is sold out.", []),
    ("DO\n- expect a width-4 request to end up on an 8× box when 4× is sold out.", [2]),
    # "the only STANDARD rungs on GCP are A100 rungs": STANDARD is A100's alone
    ("The only STANDARD rungs on GCP are A100 rungs.", []),
    ("The only STANDARD rungs on GCP are H100 rungs.", [1]),
    # "only because" gives a reason, not a family's only models
    ("At one width both flex-start rungs come before the A100 STANDARD rung, so your job "
     "reached STANDARD only because both flex-start rungs had missed.", []),
    # a year, and a time measured on one run, are history
    ("In 2023 the team's `launch.sh` wrapper went to RunPod first.", []),
    ("Benchmark notes: the 7b eval ran in 38 min on an 8x H100 node and in 1 h 50 min on a "
     "4x A100 RunPod pod.", []),
    # a width scope before the job is the rule's
    ("The comparison uses the length at each width: a 2 h request at 8× is short only at 8×.",
     []),
    ("The comparison uses the length at each width: a 2 h request at 8× is still short at "
     "4×.", [1]),
    # "does not exhaust every A100 option before an H100": a walk denied, not an order
    ("The router does not exhaust every A100 option before it touches an H100.", []),
    ("The router tries H100 before A100 at each width.", [1]),
    # a turned-down option's bold title, and the reason it was turned down
    ("## Non-goals\n\n**An opt-in flag for eight-GPU machines.** The 8× rungs are already "
     "part of the automatic ladder.", []),
    ("## Non-goals\n\n**An opt-in flag for eight-GPU machines.** The 8× rungs are not part of "
     "the automatic ladder.", [3]),
    ("An early draft asked SLURM first. We rejected it: putting campus-preempt ahead of GCP "
     "would delay jobs.", []),
    ("Putting campus-preempt ahead of GCP would delay jobs.\nSo the router puts SLURM first.",
     [2]),
    # a second job in its own sentence is not the first one carried on
    ("8 GPUs × 2 h is 4 h at width 4, so it is long there. Likewise 8 GPUs × 25 h is 200 h at "
     "width 1, past the 168 h cap, so width 1 has no FLEX_START rung.", []),
    ("8 GPUs × 2 h is 4 h at width 4, so it is long there. Likewise 8 GPUs × 25 h is 200 h at "
     "width 1, so width 1 still has a FLEX_START rung.", [1]),
    # an example after the minimum-width cue is the cue's example, not its value
    ("SLURM runs at the intent's minimum width rather than the width you requested, so an "
     "eight-GPU capture-7b request lands on campus as a one-GPU job.", []),
    ("SLURM runs at the intent's minimum width, which for capture-7b is 8.", [1]),
    # "had no notion of width and simply asked for …": a new predicate, not negated
    ("The v0 prototype had no notion of width and simply asked for one on-demand A100.", []),
    ("Our launcher has no notion of width and simply asks for one on-demand H100.", [1]),
    # "every job" as the subject names both length classes
    ("Every job still leads with SPOT; long ones just try FLEX before STANDARD.", [1]),
    ("Short jobs lead with SPOT; long ones try FLEX before STANDARD.", []),
    # a history note goes on past its semicolon while it is told in the past
    ("*History:* the v0 router had no widths at all; every dispatch got one GPU and it "
     "always asked for preemptible capacity first.", []),
    ("The flex-start cap used to be 7 days; it was cut to 24 hours.", [1]),
    # hurried notes' names: FS, FLEX, o-d
    ("quick notes:\n- FS max = 168 h but it's strict: exactly 168 h (a week) gets no FS rung",
     [2]),
    ("quick notes:\n- FS max = 168 h and it's inclusive: exactly 168 h still gets an FS rung",
     []),
    ("H100 never runs o-d.", []),
    ("H100 runs o-d too.", [1]),
    # "since a3 is faster" gives a reason; the order before it stands
    ("At each model it tries the H100 first and then the A100, since a3 is faster.", [1]),
    # a decision table: each row is "if <condition>, the router <action>"
    ("| if … | then the router … |\n| --- | --- |\n| every GCP rung missed | tries campus-a100 |"
     "\n| campus-a100 waited 30 min with no node | goes straight to RunPod |", [4]),
    ("| if … | then the router … |\n| --- | --- |\n| every GCP rung missed | tries campus-a100 |"
     "\n| campus-a100 waited 30 min with no node | tries campus-preempt |", []),
    # a lane's miss: what comes right after it
    ("When campus-a100 misses, the router goes straight to RunPod.", [1]),
    ("When campus-preempt misses, the router goes to RunPod.", []),
    # "that lane" points back to the lane the sentence named
    ("campus-preempt can sit for 2 h, so the router tries RunPod before that lane.", [1]),
    ("campus-preempt can sit for 2 h, and the router tries RunPod only after that lane.", []),
    # the widths a request walks, spelled and listed with "then"
    ("For an eight-GPU capture-7b request the GCP widths tried are eight, four and then one.",
     [1]),
    ("For an eight-GPU capture-7b request the GCP widths tried are eight, four, two and then "
     "one.", []),
    # "more than four hours" leaves 4 h out of the long class
    ("Long means more than four hours.", [1]),
    ("Long means four hours or more.", []),
    # a glossary entry's bold title names the class its definition is about
    ("**Glossary: short job.** A job whose length at the width being tried is four hours or "
     "less.", [1]),
    ("**Glossary: short job.** A job whose length at the width being tried is under four "
     "hours.", []),
    # the class judged on the request's hours alone
    ("When a job is narrowed, the router keeps using the requested hours H for the short/long "
     "decision.", [1]),
    ("When a job is narrowed, the router does not use the requested hours for the short/long "
     "decision.", []),
    # a job goes on through a sentence that only restates its lengths, and a later
    # sentence's lead at a width is that job's
    ("capture-7b asked at 4x for 1.5 h. At 2x that's 3 h and at 1x it's 6 h. So the 2x rungs "
     "lead with FLEX_START.", [1]),
    ("capture-7b asked at 4x for 1.5 h. At 2x that's 3 h and at 1x it's 6 h. So the 2x rungs "
     "lead with SPOT, and 1x leads with FLEX_START.", []),
    ("lora-7b 8x for 25 h → 4x 50 h → 2x 100 h → 1x 200 h.\nFlex-start is still on the menu "
     "at 1x.", [2]),
    ("lora-7b 8x for 25 h → 4x 50 h → 2x 100 h → 1x 200 h.\nFlex-start is not on the menu at "
     "1x.", []),
    # a router command inside a procedure names a tool, not the ladder
    ("To test the RunPod backend in isolation: deploy a pod to RunPod first, then point "
     "`backend-router dispatch --dry-run` at it.", []),
    ("The router tries RunPod first, then GCP.", [1]),
    # a CI schedule's GPU counts are no width chain
    ("```mermaid\nflowchart LR\n  PR --> lint --> nightly[\"nightly: 2 GPUs, then 8 GPUs\"]\n"
     "```", []),
    # "the last width-1 GCP rung" picks one rung; it places no width last
    ("Only after the last width-1 GCP rung misses: campus-a100, then campus-preempt.", []),
    ("Only after the last width-1 GCP rung misses: campus-preempt, then campus-a100.", [1]),
    # "STANDARD (A100 only)" is its own model's family, not the models before it
    ("At each width the router tries FLEX_START first, then STANDARD (A100 only), then SPOT.",
     []),
    ("At each width the router tries FLEX_START first, then STANDARD (H100 only), then SPOT.",
     [1]),
    # labelled lines are sentences of their own
    ("**Steps to reproduce:** `backend-router dispatch --intent capture-7b --gpu-count 4 "
     "--hours 2`\n**Expected:** the campus SLURM cluster is tried before any GCP VM.", [2]),
    # "Both X and Y are …": one predicate for each family
    ("Both a2-ultragpu and a3-highgpu are spot/flex-start only.", [1]),
    ("Both a2-ultragpu and a3-highgpu offer spot and flex-start.", []),
    # a command's help text in a fence: each option's description is prose
    ("```\n  --gpu-count N    requested width. On a miss the router\n"
     "                   halves it; if the narrowest width misses too,\n"
     "                   it retries one size wider before leaving GCP.\n```", [4]),
    ("```\n  --gpu-count N    requested width. On a miss the router\n"
     "                   halves it down to the intent's min width.\n```", []),
    ("```text\nusage: backend-router dispatch [-h] [--gpu-count N]\n\n"
     "Walks the ladder: RunPod first, then GCP.\n\noptions:\n"
     "  --gpu-count N  requested width\n```", [4]),
    # "drops straight to the intent's min width" skips the widths between
    ("On a miss at 8 GPUs the router drops straight to the intent's min width.", [1]),
    ("On a miss at 2 GPUs the router drops straight to the intent's min width.", []),
    # "STANDARD rungs only ever use a2 machines: …": the first clause is its own claim
    ("STANDARD (on-demand) rungs only ever use a2-ultragpu-{N}g machines: the A100 family "
     "offers all three models.", []),
    ("STANDARD (on-demand) rungs only ever use a3-highgpu-{N}g machines: the H100 family "
     "offers all three models.", [1]),
    # a definition of the lead, then each class's model; "a long one" is a class
    ("`lead`\n:   The provisioning model tried first at a width. `STANDARD` for a short\n"
     "    job, `FLEX_START` for a long one.", [2]),
    ("`lead`\n:   The provisioning model tried first at a width. `SPOT` for a short\n"
     "    job, `FLEX_START` for a long one.", []),
    ("**lead** — STANDARD for short jobs, FLEX_START for long ones.", [1]),
    # "at or under 4 h" takes in 4 h itself
    ("Jobs at or under 4 hours lead with SPOT.", [1]),
    ("Jobs under 4 hours lead with SPOT.", []),
    # a config comment's "this many hours" is its line's value
    ("```yaml\nshort_threshold_hours: 4   # jobs at or under this many hours lead with SPOT\n"
     "```", [2]),
    ("```yaml\nshort_threshold_hours: 4   # jobs under this many hours lead with SPOT\n"
     "```", []),
    ("```yaml\n# jobs shorter than this lead with FLEX_START\nshort_threshold_hours: 4\n```",
     [2]),
    # an INI file's `;` comment and a JSONC file's `//` comment are prose too
    ("```ini\n[ladder]\nshort_threshold_hours = 4   ; jobs at or under this many hours lead "
     "with SPOT\n```", [3]),
    ("```ini\n[ladder]\nshort_threshold_hours = 4   ; jobs under this many hours lead with "
     "SPOT\n```", []),
    ("```jsonc\n{\n  \"short_threshold_hours\": 4, // jobs at or under this many hours lead "
     "with SPOT\n  \"url\": \"https://example.com\"\n}\n```", [3]),
    ("```yaml\nflex_start_max_run_hours: 168   # jobs longer than this get no FLEX_START rung "
     "at that width\n```", []),
    ("```yaml\nflex_start_max_run_hours: 168   # jobs longer than this still get a FLEX_START "
     "rung at that width\n```", [2]),
    # a setting's reference entry: its default, and what points back at it
    ("**short_threshold_hours**\nDefault: 6. Jobs shorter than this lead with SPOT.", [1, 2]),
    ("**short_threshold_hours**\nDefault: 4. Jobs shorter than this lead with SPOT.", []),
    ("`flex_start_max_run_hours` defaults to 100.", [1]),
    # a length up to the maximum that is denied the model
    ("Jobs up to 168 h get no FLEX_START rung at that width.", [1]),
    ("Jobs up to 168 h get a FLEX_START rung at that width.", []),
    ("Up to 168 h, a job is not denied FLEX_START.", []),
    # "Q: X, so why …?": X is taken as given
    ("**Q: Dispatch checks both SLURM lanes before it tries any GCP machine, so why did my job "
     "end up on GCP?**", [1]),
    ("**Q: Dispatch tries every GCP rung before the SLURM lanes, so why did my job end up on "
     "campus-a100?**", []),
    # "No, only for short jobs" denies the "always", not the restriction
    ("Q: Isn't spot always tried first?\nA: No, only for short jobs.", []),
    ("Q: Isn't spot always tried first?\nA: No, only for long jobs.", [2]),
    # "STANDARD on both families" gives each family the model
    ("For a long job: FLEX_START, then STANDARD on both families, then SPOT.", [1]),
    ("For a long job: FLEX_START on both families, then STANDARD, then SPOT.", []),
    # a rung named first: the first family's, on a model a class leads with
    ("> which box does a short 8x job try first?\n\nH100 spot (a3-highgpu-8g), it's the "
     "faster card", [3]),
    ("> which box does a short 8x job try first?\n\nA100 spot (a2-ultragpu-8g), then H100 "
     "spot", []),
    # "It tries X first" after a job is that job's lead
    ("A 30 h job at 8x is long. It tries a2-ultragpu-8g on spot first.", [1]),
    ("A 30 h job at 8x is long. It tries a2-ultragpu-8g on FLEX_START first.", []),
    # a job a question states goes on into its answer
    ("Q: My fine-tune is 30 h at 8x. Which rung does it try first?\nA: a2-ultragpu-8g on "
     "spot.", [2]),
    ("Q: My fine-tune is 30 h at 8x. Which rung does it try first?\nA: a2-ultragpu-8g on "
     "FLEX_START.", []),
    ("My fine-tune is 30 h at 8x. It tries a2-ultragpu-8g on spot first.", [1]),
    # the answer to "how do I …?" is a procedure of its own
    ("Q: How do I smoke-test my container before a real dispatch?\nA: Deploy it to a RunPod "
     "pod by hand first (one GPU is enough), then stop the pod.", []),
    # a Q | A table's answer cell answers its row's question
    ("| Q | A |\n| --- | --- |\n| lora-7b min width? | 2, same as eval-70b |", [3]),
    ("| Q | A |\n| --- | --- |\n| lora-7b min width? | 1, unlike eval-70b |", []),
    # "flex-start allows that" offers the rung at the length just named
    ("yes, 1x is 240h and flex-start allows that", [1]),
    ("yes, 1x is 120h and flex-start allows that", []),
    # "keeps your wall-clock" on fewer GPUs: the length would not move
    ("The router keeps your wall-clock and just runs the job on fewer GPUs.", [1]),
    ("The router keeps your GPU-hours and runs the job on fewer GPUs for longer.", []),
    # "ran on campus-a100 with all 8 GPUs": a lane runs at the intent's minimum
    ("Your 8x capture-7b job fell through to SLURM and ran on campus-a100 with all 8 GPUs.",
     [1]),
    ("Your 8x capture-7b job fell through to SLURM and ran on campus-a100 with 1 GPU.", []),
    # a table's `min_width` key is its min width column; a field table's key row
    ("| intent | min_width |\n| --- | --- |\n| `eval-70b` | 4 |", [3]),
    ("| intent | min_width |\n| --- | --- |\n| `eval-70b` | 2 |", []),
    ("| field | default | meaning |\n| --- | --- | --- |\n| `short_threshold_hours` | 6 | "
     "jobs shorter than this lead with SPOT |", [3]),
    # an elided subject is the lane the sentence before was about
    ("`campus-a100`\n:   Partition `gpu`, up to 8 GPUs. Waits up to two hours for a slot\n"
     "    before the router moves on to `campus-preempt`.", [2]),
    ("`campus-a100`\n:   Partition `gpu`, up to 8 GPUs. Waits up to 30 minutes for a slot\n"
     "    before the router moves on to `campus-preempt`.", []),
    # "the automatic walk never picks an 8g machine" leaves 8× out of it
    ("```yaml\nwidths: [1, 2, 4, 8]   # 8 is for manual launches; the automatic walk never "
     "picks an 8g machine\n```", [2]),
    ("```yaml\nwidths: [1, 2, 4, 8]   # the automatic walk picks an 8g machine first\n```",
     []),
    # shorthand notes: "8g" is a box size, "od" on-demand, "flex" a step of an order
    ("if 8g is dry it jumps straight to 2g", [1]),
    ("if 8g is dry it drops to 4g, then 2g", []),
    ("`#SBATCH --mem=8G`, and 4g of RAM is plenty for the 2x eval", []),
    ("auto ladder caps at 4g", [1]),
    ("auto ladder starts at 8g", []),
    ("long runs: od first, then dws, spot last", [1]),
    ("long runs: flex first, then od, spot last", []),
    ("h100s: spot/flex/od, same menu as the a100s", [1]),
    ("h100s: spot/flex only, no od", []),
    # labelled notes, one per line, are read one by one
    ("long jobs (>=4h): flex first, then od, spot last\nshort (<4h): spot → flex → od", []),
    ("long jobs (>=4h): flex first, then od, spot last\nshort (<4h): od → flex → spot", [2]),
    # a bracketed denial after a list: "(no od)" denies od alone
    ("| family | machine | models |\n|---|---|---|\n| h100 | a3-highgpu-Ng | spot / flex "
     "(no od, ever) |", []),
    ("| family | machine | models |\n|---|---|---|\n| h100 | a3-highgpu-Ng | spot (no flex, "
     "ever) |", [3]),
    # a request widened under any verb: "bumped up", "widened", "promoted"
    ("a 4g req can get bumped up to 8g when there is no 4g cap", [1]),
    ("A 4x request can be widened to 8x when there is no 4x capacity.", [1]),
    ("A 4x request can be narrowed to 2x when there is no 4x capacity.", []),
    # a walk through a rung says the family offers the rung's model
    ("long job fallback at each width: a2 flex → a3 flex → a2 od → a3 od → spot", [1]),
    ("long job fallback at each width: a2 flex → a3 flex → a2 od → a2 spot → a3 spot", []),
    # "req" is a request; "a2 od" a rung; "last gcp pick" one of GCP's picks
    ("8g 3h req that degrades to 4g keeps the 3h wall clock (just fewer gpus)", [1]),
    ("8g 3h req that degrades to 4g runs 6h there (same gpu-h)", []),
    ("long runs never lead w/ spot. spot = last gcp pick at that width", []),
    ("long runs never lead w/ dws. spot = last gcp pick at that width", [1]),
    # an instance's upkeep is procedure
    ("runpod pod for the demo first, then tear down (don't leave it up over the wknd)", []),
    # "inside a width" scopes a family-major order to one width
    ("order inside a width is family-major: all a2 rungs (spot/flex/od) then all a3 rungs",
     [1]),
    ("order inside a width is model-major: a2 spot, a3 spot, then the flex rungs", []),
    # a negation does not reach into a bracket opened after it
    ("A 4-GPU `lora-7b` request may run on 4, 2 or 1 GPU: never on 8 (the router does not "
     "widen) and never on 3 (widths are 1, 2, 4 and 8 only).", []),
    ("A 4-GPU `lora-7b` request may run on 4, 2 or 1 GPU: never on 8 (the router does not "
     "widen) and never on 3 (widths are 1, 2, 3 and 4 only).", [1]),
    # "fewer than two GPUs" is the width below two
    ("- **DON'T** expect `eval-70b` to ever run on fewer than two GPUs.", []),
    ("- **DO** expect `eval-70b` to run on fewer than two GPUs when 2x is full.", [1]),
    # a bench's ratio target is no width
    ("Linting the ladder docs takes 2.6–3.1× a bare parse (target 3×), so it is fine.", []),
    ("Linting the ladder docs is fine; dispatch retries at 3× when 4× misses.", [1]),
    # "both SLURM lanes" gives each lane the fact
    ("Both SLURM lanes give up after 30 minutes in the queue: `campus-a100` first, then "
     "`campus-preempt`.", [1]),
    ("Both SLURM lanes give up after a while in the queue: `campus-a100` first, then "
     "`campus-preempt`.", []),
    # "if the 4x rungs miss … tries the 8-GPU machines" widens the request
    ("If the 4x rungs miss, the router also tries the 8-GPU machines before going narrower.",
     [1]),
    ("If the 8x rungs miss, the router tries the 4-GPU machines before going narrower.", []),
    # "originally requested" is no history note
    ("On SLURM the job runs at the width you originally requested, so an 8x `lora-7b` job "
     "asks for 8 GPUs on partition `gpu`.", [1]),
    ("On SLURM the job runs at the intent's minimum width, so an 8x `lora-7b` job asks for "
     "1 GPU on partition `gpu`.", []),
    # "same as X's" gives X the minimum just stated
    ("eval-70b's floor is 2 GPUs, same as eval-7b's.", [1]),
    ("eval-7b's floor is 1 GPU, same as lora-7b's.", []),
    # "need the --allow-8x flag" makes the 8× rungs explicit-only
    ("8x rungs need the --allow-8x flag.", [1]),
    ("8x rungs need no flag.", []),
    # a machine series before a noun names its family; "same models as X" compares
    ("A3 machines have no spot.", [1]),
    ("A3 machines have no on-demand.", []),
    ("a3-highgpu (H100) gets the same three models as the a2 boxes: SPOT, FLEX_START and "
     "on-demand STANDARD.", [1]),
    ("a3-highgpu (H100) gets the same models as the a2 boxes minus on-demand: SPOT and "
     "FLEX_START.", []),
    # "always" / "for everything" names both length classes
    ("Spot first for everything.", [1]),
    ("Spot first for everything under 4 h.", []),
    ("We always try spot first.", [1]),
    ("We always try spot first on short jobs.", []),
    # a belief given to others, and a counterfactual about the ladder, claim nothing
    ("Some people think 4 h counts as short; it does not.", []),
    ("4 h counts as short; it does not.", [1]),
    ("If FLEX_START were allowed past 168 h, a 200 h job would get a DWS rung.", []),
    ("FLEX_START is allowed past 168 h, so a 200 h job gets a DWS rung.", [1]),
    # "it is not the case that … never" cancels; "not every X before any Y" is no order
    ("It's not the case that a long job can never land on an on-demand VM.", []),
    ("It's not the case that a long job can land on an on-demand VM.", [1]),
    ("The router doesn't try every A100 rung before any H100 rung.", []),
    ("The router doesn't try an A100 rung before an H100 rung.", [1]),
    # "between" reads in its clause; a pronoun after it is the sentence's subject
    ("RunPod is not a fallback between GCP widths, and it never jumps ahead of the campus "
     "lanes.", []),
    ("RunPod is not a fallback between GCP widths, and it always jumps ahead of the campus "
     "lanes.", [1]),
    # work done by hand "outside dispatch" is a procedure
    ("For the demo, deploy the server to RunPod first (a manual pod, outside dispatch).", []),
    ("For the demo, dispatch sends the server to RunPod first.", [1]),
    # an intent's floor: "Its minimum width is 2, so the GCP walk stops at 2×"
    ("Q: Can an eval-70b dispatch land on one GPU?\nNo. Its minimum width is 2, so the GCP "
     "walk stops at 2×.", []),
    ("The GCP walk stops at 2× for every request.", [1]),
    # "every width" and "last width" of a named intent are that intent's
    ("eval-70b at 8 GPUs for 30 h: 60 h at 4 GPUs, 120 h at 2 GPUs. Every width is long, and "
     "since 120 h ≤ 168 h flex-start is offered at every width it tries.", []),
    ("eval-7b at 8 GPUs for 30 h: 60 h at 4 GPUs, 120 h at 2 GPUs. Every width is long, and "
     "since 120 h ≤ 168 h flex-start is offered at every width it tries.", [1]),
    ("`eval-70b`, 4 GPUs × 2 h: at 4x it is 2 h. Its next and last GCP width is 2x.", []),
    ("`eval-7b`, 4 GPUs × 2 h: at 4x it is 2 h. Its next and last GCP width is 2x.", [1]),
    # two jobs in one sentence each own what is said after them
    ("At width 1 a 3.9 h job leads with SPOT and a 4.0 h job leads with FLEX_START.", []),
    ("At width 1 a 3.9 h job leads with SPOT and a 4.0 h job leads with SPOT.", [1]),
    # "retried at 2 and then at 1 GPU": the unit written on the later width
    ("A width-4 job that misses at 4 GPUs is retried at 2 and then at 1 GPU.", []),
    ("A width-8 job that misses at 8 GPUs is retried at 2 and then at 1 GPU.", [1]),
    # the job of the sentence before, its length on a width and its width-N rungs' lead
    ("Example: eval-7b at width 4 for 3 h. If only single A100s are free, the job runs 12 h "
     "on one GPU.", []),
    ("Example: eval-7b at width 4 for 3 h. If only single A100s are free, the job runs 6 h "
     "on one GPU.", [1]),
    ("4 GPUs × 45 h → 180 h at width 1. That is a long job, so the router leads the width-1 "
     "rungs with STANDARD.", []),
    ("4 GPUs × 45 h → 180 h at width 1. That is a long job, so the router leads the width-1 "
     "rungs with FLEX_START.", [1]),
    # a leading reason clause keeps its negation
    ("Since 4 h is not below the 4 h cutoff, the 1× rungs lead with FLEX_START.", []),
    ("Since 4 h is not above the 4 h cutoff, the 1× rungs lead with SPOT.", [1]),
    # "if both miss" points back at the widths the sentence before tried last
    ("A width-8 capture-7b dispatch tries the 8-GPU and the 4-GPU shapes on GCP;\nif both "
     "miss, it moves on to the campus cluster (campus-a100 first).", [2]),
    ("A width-8 eval-70b dispatch tries the 8-GPU, 4-GPU and 2-GPU shapes on GCP;\nif all "
     "of them miss, it moves on to the campus cluster (campus-a100 first).", []),
    # (a relative-clause miss with no width names nothing that missed)
    ("A request that misses goes straight to SLURM.", []),
    # a step of one intent's walk reaches its width
    ("What happens to an eval-70b dispatch at width 4 when capacity is tight:\n\n"
     "1. GCP at 4 GPUs.\n2. GCP at 2 GPUs.\n3. GCP at 1 GPU.\n4. The SLURM lanes.", [5]),
    ("What happens to an eval-70b dispatch at width 4 when capacity is tight:\n\n"
     "1. GCP at 4 GPUs.\n2. GCP at 2 GPUs.\n3. The SLURM lanes.", []),
    # "takes a free 8x machine" when 4x misses widens; "leaves 8-GPU rungs out" excludes
    ("When 4x has no capacity the router takes a free 8x machine.", [1]),
    ("When 8x has no capacity the router takes a free 4x machine.", []),
    ("The auto ladder leaves 8-GPU rungs out.", [1]),
    ("The auto ladder leaves no width out.", []),
    # "right after" a lane skips the lanes after it
    ("The router goes to RunPod right after campus-a100.", [1]),
    ("The router goes to RunPod right after campus-preempt.", []),
    # one width written twice places the follow-up; "it stays short and the 4x rungs
    # lead with …" is the carried job's lead there
    ("1.5 h at 8× is 3 h at 4×. That makes it long at 4×, so the 4× rungs lead with "
     "FLEX_START.", [1]),
    ("1.5 h at 8× is 3 h at 4×. That makes it short at 4×, so the 4× rungs lead with SPOT.",
     []),
    ("A 3 h job at 8x is 24 GPU-hours. Degraded to 4x it runs 6 h; it stays short and the 4x "
     "rungs still lead with SPOT.", [1]),
    ("A 3 h job at 8x is 24 GPU-hours. Degraded to 4x it runs 6 h; it is long there and the "
     "4x rungs lead with FLEX_START.", []),
    # a tree's branch keyed by a model lists families; a nested branch hangs from the
    # branch above it
    ("```\nwidth 8, short job (1.5 h)\n├── SPOT:       a2-ultragpu-8g → a3-highgpu-8g\n"
     "├── FLEX_START: a2-ultragpu-8g → a3-highgpu-8g\n└── STANDARD:   a2-ultragpu-8g   "
     "(no a3: H100 has no on-demand)\n```", []),
    ("```\nwidth 8, short job (1.5 h)\n├── SPOT:       a2-ultragpu-8g → a3-highgpu-8g\n"
     "├── FLEX_START: a3-highgpu-8g → a2-ultragpu-8g\n```", [4]),
    ("```\nGCP (every width, wide → narrow)\n  └─> SLURM: campus-a100 → campus-preempt\n"
     "        └─> RunPod (real dollars, last)\n```", []),
    ("```\nGCP (every width, wide → narrow)\n  └─> RunPod\n        └─> SLURM\n```", [3, 4]),
    # a comparison set off by commas names an old thing; the sentence is today's
    ("DWS VMs, like legacy preemptible VMs, are stopped after 24 h.", [1]),
    ("DWS VMs, unlike legacy preemptible VMs, run for up to 168 h.", []),
    # a walk's list is in the order walked
    ("At each width a short job walks a3 SPOT, a2 SPOT, a3 FLEX_START, a2 FLEX_START, "
     "a2 STANDARD.", [1]),
    ("At each width a short job walks a2 SPOT, a3 SPOT, a2 FLEX_START, a3 FLEX_START, "
     "a2 STANDARD.", []),
    # "skipped unless enabled" is opt-in; a leading miss clause ends at its comma
    ("8-GPU machines are skipped unless enabled.", [1]),
    ("8-GPU machines are never skipped unless they miss.", []),
    ("After each GCP width misses, the router tries the SLURM lanes at that width before "
     "degrading to the next GCP width.", [1]),
    ("After the 1x GCP rungs miss, the router tries the SLURM lanes before RunPod.", []),
    # past tense under a history heading, and a pointer back at a history note
    ("### History\n\nIn the v0 prototype the router asked for the width you gave it.\n"
     "That prototype also tried RunPod ahead of the campus lanes.", []),
    ("### History\n\nThe router tries RunPod ahead of the campus lanes.", [3]),
    # "it" opening a sentence is the sentence before's first orderable name
    ("RunPod costs real money, so the router uses it sparingly.\nIt comes after the "
     "campus-a100 lane but ahead of campus-preempt.", [2]),
    ("RunPod costs real money, so the router uses it sparingly.\nIt comes after the "
     "campus-a100 lane and after campus-preempt.", []),
    # an answer goes on about the job its question stated
    ("Q: My LoRA job asks for 2 GPUs for 1.5 h. What happens if 2x is full?\n\nA: It drops "
     "to one GPU and takes 3 h. At one GPU it is treated as long and leads with FLEX_START.",
     [3]),
    ("Q: My LoRA job asks for 2 GPUs for 1.5 h. What happens if 2x is full?\n\nA: It drops "
     "to one GPU and takes 3 h. At one GPU it is short and leads with SPOT.", []),
    # a fence of settings under "Intent minimums …:"
    ("Intent minimums as the router sees them:\n```json\n{\"capture-7b\": 1, \"lora-7b\": 1, "
     "\"eval-70b\": 2}\n```", []),
    ("Intent minimums as the router sees them:\n```json\n{\"capture-7b\": 1, \"lora-7b\": 2, "
     "\"eval-70b\": 2}\n```", [3]),
    # a wider width is a consequence only where the text puts the job there
    ("If the 8g and 4g rungs all miss, width 2 means 24 / 2 = 12 h: a long job there, so "
     "flex-start leads and spot drops to last.", []),
    ("A 24 h job at 1x is 3 h at 8x, which is long, so FLEX_START leads at 8x.", [1]),
    # an aside's arithmetic negates only itself
    ("| width | length | class | leads with |\n|---|---|---|---|\n"
     "| 2 | 4 h | long (4 h is not below 4 h) | FLEX_START |", []),
    ("| width | length | class | leads with |\n|---|---|---|---|\n"
     "| 2 | 4 h | long (4 h is not below 4 h) | SPOT |", [3]),
    # "the last GCP try" is one of GCP's tries
    ("At 1 GPU the job is long, so DWS leads and spot is the last GCP try at that width.", []),
    ("At 1 GPU the job is long, so spot leads and DWS is the last GCP try at that width.",
     [1]),
    # "every 7b intent": the intents named by a part of their names
    ("For every 7b intent the last GCP width is 1×.", []),
    ("For every 7b intent the last GCP width is 2×.", [1]),
    # ", so only the 8-GPU width is short": that width's class, not the last length's
    ("`eval-70b` at 8 GPUs for 2 h: lengths are 2 h, 4 h and 8 h, so only the 8-GPU width "
     "is short.", []),
    ("A job of exactly 4 h counts as short.", [1]),
    # the width the rungs after GCP ask for, said of the intent named with it
    ("SLURM jobs are submitted at the intent's minimum width: one GPU for the 7b intents, "
     "two for `eval-70b`.", []),
    ("The SLURM and RunPod rungs ask for the minimum width, so eval-70b asks for 2 GPUs "
     "there and lora-7b asks for 1.", []),
    ("The SLURM and RunPod rungs ask for the minimum width, so eval-70b asks for 1 GPU "
     "there.", [1]),
    # a length said to stay the same at every width
    ("When the router falls back to a narrower width it reuses that same hours figure, so a "
     "2 h request is a 2 h (short, spot-first) job at every width it tries.", [1]),
    ("When the router falls back to a narrower width it never reuses the same hours figure: "
     "a 2 h request at 8 GPUs runs 8 h on two.", []),
    # a spelled count after "stop at"
    ("`capture-7b` and `eval-7b` go down to a single GPU; `eval-70b` stops at two.", []),
    ("`capture-7b` and `eval-7b` go down to a single GPU; `lora-7b` and `eval-70b` stop at "
     "two.", [1]),
    # a negation between the model and its lead cue
    ("SPOT is never first for a 6 h job.", []),
    ("SPOT is first for a 6 h job.", [1]),
    # "except" leaves out what follows it, and only that
    ("H100 offers every provisioning model except on-demand.", []),
    ("A100 offers every provisioning model except on-demand.", [1]),
    ("All intents except `eval-70b` can run at width 1; `eval-70b` needs 2 GPUs.", []),
    # "the only STANDARD rungs are A100 ones": STANDARD is A100's alone
    ("The only STANDARD (regular VM) rungs in the ladder are A100 ones.", []),
    ("Only A100 rungs are STANDARD.", []),
    ("Only H100 rungs are STANDARD.", [1]),
    # a wider width denied after a narrower request is the no-widening rule
    ("A 4x lora-7b request degrades 4x → 2x → 1x. It is **not** retried at 8x.", []),
    ("A 4x lora-7b request degrades 4x → 2x → 1x. It is then retried at 8x.", [1]),
    # "8x for 3 h": the width, then the length the job runs for
    ("8x for 3 h degraded to 2x is 12 h, so long, so FLEX_START leads at 2x.", []),
    ("8x for 1 h becomes 4 h at 2x, so it is still short at 2x and SPOT leads there.", [1]),
    ("Eight GPUs for 22 hours. If it degrades to one GPU it becomes a 176 h run, and the "
     "router still leads that width with flex-start.", [1]),
    # a chain that "stops there" ends at the intent's minimum width
    ("An 8× eval-70b request goes 8× → 4× → 2× and stops there.", []),
    ("An 8× eval-7b request goes 8× → 4× → 2× and stops there.", [1]),
    ("A capture-7b request tries 8x and stops there if it lands.", []),
    # "a 7B request": the intents with that part of a name
    ("A 70B request never goes below two GPUs on GCP.", []),
    ("A 7B request never goes below two GPUs on GCP.", [1]),
    # a mistake named by the belief, then corrected
    ("- Expecting a 2-GPU job to show up on an 8-GPU machine: the router never widens.", []),
    # a rung's model heads the list a denial follows; a model denied past a length is
    # its maximum run, not the family's models
    ("| job | first rung at 1× |\n| --- | --- |\n| 2 GPUs × 100 h | a2-ultragpu-1g STANDARD "
     "(no flex-start past 168 h) |", []),
    ("| job | first rung at 1× |\n| --- | --- |\n| 2 GPUs × 100 h | a2-ultragpu-1g SPOT "
     "(never STANDARD) |", [3]),
    # a width asked for and called bad input is not a width the intent reaches
    ("A §9 phase that asks for `eval-70b` at width 1 is bad input for the critic.", []),
    ("A §9 phase may ask for `eval-70b` at width 1.", [1]),
    # "a 10-way `draw_set` axis" is an axis's size, not a width
    ("A width-1 phase over a 10-way `draw_set` axis is a case for widening.", []),
    # a fact stated at one width and joined on to another
    ("A lora-7b job at 2 GPUs × 85 h gets DWS rungs at width 2 and also at width 1.", [1]),
    ("A lora-7b job at 2 GPUs × 20 h gets DWS rungs at width 2 and also at width 1.", []),
    # the dispatch flags state a job, and an item's job is its nested list's
    ("`backend-router dispatch --intent eval-70b --gpu-count 8 --hours 10` lands at 2x, "
     "where it runs 40 h.", []),
    ("`backend-router dispatch --intent eval-70b --gpu-count 8 --hours 10` lands at 2x, "
     "where it runs 20 h.", [1]),
    ("- `eval-70b`, `--gpu-count 8 --hours 10`\n  - width 2: 20 h, long", [2]),
    ("- `eval-70b`, `--gpu-count 8 --hours 10`\n  - width 2: 40 h, long", []),
    # a start said of every request width
    ("The walk always starts on the 8-GPU machines, whatever width was requested.", [1]),
    ("The walk always starts at the requested width, whatever width was requested.", []),
    # a width after GCP said of every intent
    ("The SLURM fallback always asks for one GPU, whatever the intent.", [1]),
    ("The SLURM fallback always asks for one GPU for the 7b intents.", []),
    # "will not go below" is a floor
    ("eval-70b will not go below two GPUs.", []),
    ("lora-7b will not go below two GPUs.", [1]),
    # a denied fallback denies that it comes next, not that it comes after
    ("Don't expect RunPod as a quick fallback when GCP misses.", []),
    ("Expect RunPod as a quick fallback when GCP misses.", [1]),
    # after a colon, "first" places its clause's members before the backend named earlier
    ("**DON'T** expect RunPod as a quick fallback: every other GCP rung (narrower widths "
     "included) and both SLURM lanes come first.", []),
    ("Think of GCP as the fallback: the router tries the SLURM lanes and RunPod first.", [1]),
    # a lane named by its partition: "partition `gpu`", "-p preempt"
    ("SLURM fallback, in order:\n- partition `gpu` (waits up to 30 min)\n- partition "
     "`preempt` (waits up to 120 min)", []),
    ("SLURM fallback, in order:\n- partition `preempt` (waits up to 120 min)\n- partition "
     "`gpu` (waits up to 30 min)", [3]),
    # "no X without Y first": the negations cancel for Y
    ("No job reaches the campus cluster without GCP having been tried first.", []),
    ("No job reaches GCP without the campus cluster having been tried first.", [1]),
    # "in between" with no pair after it names no ends
    ("If no 8× machine is free, the router doesn't jump straight to a single GPU: it tries "
     "every width in between, halving each time (8 → 4 → 2 → 1 for capture-7b).", []),
    ("RunPod sits between the GCP rungs and the SLURM lanes.", [1]),
    # an aside between a name and "comes first"
    ("campus-preempt is never tried before campus-a100: the gpu partition (waits up to 30 "
     "min, up to 8 GPUs) comes first, the preempt partition second.", []),
    ("The preempt partition (waits up to 120 min, at most 4 GPUs) comes first, the gpu "
     "partition second.", [1]),
    # a comma splice starts a clause of its own
    ("Long jobs never lead with spot: spot isn't dropped, it's just the last GCP choice at "
     "that width.", []),
    # one provisioning model at every width before the next: the ladder is width-major
    ("Spot is tried at 8, 4, 2 and 1 GPUs before flex-start is tried at any width.", [1]),
    ("The walk is provisioning-major: spot at all widths first, then flex-start.", [1]),
    ("The router exhausts spot across every width before it moves on to flex-start.", [1]),
    ("At every width, short jobs try SPOT before FLEX_START.", []),
    ("The router does not exhaust spot across all widths before it tries flex-start.", []),
    # "not tried until" is "only after"
    ("campus-a100 is not tried until campus-preempt has waited its full 120 minutes.", [1]),
    ("On the campus cluster, campus-preempt isn't tried until campus-a100 has waited.", []),
    ("RunPod is not tried until both SLURM lanes have missed.", []),
    # no cap on flex-start, however it is said
    ("Flex-start isn't capped: a job of any length gets DWS rungs.", [1]),
    ("Every width gets FLEX_START rungs however long the job runs there.", [1]),
    ("FLEX_START isn't capped at 24 h; it runs up to 168 h.", []),
    # an intent's walk drawn with bare numbers
    ("eval-70b walks 8 → 4 → 2 → 1 like the other intents.", [1]),
    ("capture-7b goes 8 → 4 → 2 → 1.", []),
    # a negated clause after ", and" has its own subject: not the cue's object
    ("The campus lanes are never tried before the narrowest GCP rung has missed, and the "
     "paid cloud isn't touched unless every GCP and SLURM rung has missed too.", []),
    # "bump you up to 4×" widens the request
    ("**A:** the router will bump you up to a 4× machine if one is free, and only then "
     "fall back to a single GPU.", [1]),
    ("The router never bumps you up to a 4× machine when 2× is full.", []),
    # a table of intents and their narrowest widths
    ("| intent | narrowest width |\n| --- | --- |\n| capture-7b | 1 |\n| lora-7b | 2 |\n"
     "| eval-70b | 2 |", [4]),
    ("| intent | min width |\n| --- | --- |\n| lora-7b | 1 |\n| eval-70b | 2 |", []),
    # a fenced list of lanes under a comment that says it is in order
    ("```yaml\n# SLURM fallback lanes, in the order dispatch tries them\n- campus-preempt\n"
     "- campus-a100\n```", [4]),
    ("```yaml\n# SLURM fallback lanes, in the order dispatch tries them\n- campus-a100\n"
     "- campus-preempt\n```", []),
    # a table's header row of column names states nothing; its rows do
    ("| width | length | short/long | leads with | flex-start offered |\n|---|---|---|---|---|\n"
     "| 8 | 2.5 h | short | SPOT | yes |\n| 4 | 5 h | long | FLEX_START | yes |", []),
    # each length stated right before the width it is at
    ("An 8-GPU job of one hour becomes a 2 h job at 4× and an 8 h job at 1×.", []),
    ("An 8-GPU job of one hour becomes a 4 h job at 4× and an 8 h job at 1×.", [1]),
    # a numbered step that opens with a command is a step to type, not a rung
    ("1. `sinfo -p gpu,preempt` to see free A100s.\n"
     "2. `sbatch --gres=gpu:a100:2 job.slurm` and note the job id.", []),
    # a walk's line that is only a rung lists a rung the router tries
    ("1. a2-ultragpu-8g SPOT\n2. a3-highgpu-8g SPOT\n3. a2-ultragpu-8g STANDARD\n"
     "4. a3-highgpu-8g STANDARD", [4]),
    ("1. a2-ultragpu-8g SPOT\n2. a3-highgpu-8g SPOT\n3. a2-ultragpu-8g STANDARD", []),
    # "just X, then Y" walks rungs; it makes no model a family's only one
    ("At width 1 the rungs are just a2-ultragpu-1g STANDARD, then a2-ultragpu-1g SPOT and "
     "a3-highgpu-1g SPOT.", []),
    # "no 8× capacity" is the miss, not a denial of what follows
    ("When there's no 8× capacity the router drops straight to 2×.", [1]),
    ("When there's no 8× capacity the router drops to 4×.", []),
    # a count written for an intent in an aside is that intent's minimum, and an
    # example after a dash is the example's
    ("Widths walk down to the intent's minimum (1, or 4 for eval-70b) — so a 4-GPU "
     "lora-7b request tries 4×, then 2×, then 1×.", [1]),
    ("Widths walk down to the intent's minimum (1, or 2 for eval-70b) — so a 4-GPU "
     "lora-7b request tries 4×, then 2×, then 1×.", []),
    ("The 7B intents (capture-7b, eval-7b, lora-7b) can shrink all the way to one GPU, but "
     "eval-70b bottoms out at two.", []),
    ("The 7B intents (capture-7b, eval-7b, lora-7b) can shrink all the way to one GPU, but "
     "eval-70b bottoms out at four.", [1]),
    # "only reaches X once Y": X is the subject, whatever the clause before named
    ("Never expect the paid cloud to pick up a job while a campus lane still had a chance: "
     "the router only reaches RunPod once campus-a100 and campus-preempt have both missed.",
     []),
    ("Don't expect the campus cluster to see a job early: the router only reaches SLURM "
     "once RunPod has missed.", [1]),
    # a procedure wholly in brackets is still a procedure
    ("(If you see a RunPod charge, look at the campus queue waits first.)", []),
    # another intent's job is not the first one's length at another width
    ("Run `make eval-smoke` first (eval-7b, about ten minutes on one GPU), before the full "
     "eval-70b suite, which takes roughly two hours on 8 GPUs.", []),
    # a request row's chain reaches its last width for the row's intent
    ("| request | GCP widths tried |\n| --- | --- |\n| lora-7b x2 | 2, 1 |\n"
     "| eval-70b x8 | 8, 4, 2, 1 |", [4]),
    ("| request | GCP widths tried |\n| --- | --- |\n| lora-7b x2 | 2, 1 |\n"
     "| eval-70b x8 | 8, 4, 2 |", []),
    # "after X come Y" is inverted: X comes first
    ("A 2-GPU eval-70b request has nothing narrower to fall back to: after its 2x rungs "
     "come the SLURM lanes.", []),
    ("A 2-GPU eval-70b request has nothing narrower to fall back to: after the SLURM lanes "
     "comes GCP.", [1]),
    # a width denied for a request is left off its walk
    ("A single GPU is never tried on GCP for a request that started at eight.", [1]),
    ("A single GPU is never tried for an eval-70b request.", []),
    # "past a week at a given width there is no flex-start rung": the limit's, not a family's
    ("Past a week at a given width there is no flex-start rung at that width, for either "
     "family.", []),
    # "8x the wall-clock" multiplies a time; "instead of 1x" sets a width aside
    ("SLURM lanes run at the intent's min width, so a capture-7b job lands there on one GPU "
     "with 8x the wall-clock.", []),
    ("eval-70b stops one width earlier (2x instead of 1x), so its SLURM rungs run at "
     "width 2.", []),
    # what follows "after" precedes the last one
    ("Spot is not removed from a long job's ladder, though: at each width it is the last "
     "GCP choice, after flex-start and on-demand.", []),
    ("Flex-start is not removed from a long job's ladder, though: at each width it is the "
     "last GCP choice, after on-demand and spot.", [1]),
    # the worked job of the sentence before, on the width a condition names
    ("A 2 h job at 8×. If GCP only has 2-GPU capacity, the job runs for about four hours on "
     "those two GPUs.", [1]),
    ("A 2 h job at 8×. If GCP only has 2-GPU capacity, the job runs for about eight hours on "
     "those two GPUs.", []),
    # "only if X has nothing does the job queue on <lane>": the lane's backend after X
    ("The fallback is GCP at every width, then RunPod, and only if RunPod has no matching "
     "GPU type does the job queue on campus-a100.", [1]),
    ("Only if GCP has no capacity at any width does the job queue on campus-a100.", []),
    # "on-demand: A100, then H100": that model's rungs, one per family
    ("For a long job the rungs at each width are:\n\n1. flex-start: A100, then H100\n"
     "2. on-demand: A100, then H100\n3. spot: A100, then H100", [4]),
    ("For a long job the rungs at each width are:\n\n1. flex-start: A100, then H100\n"
     "2. on-demand: A100\n3. spot: A100, then H100", []),
]


@pytest.mark.parametrize(("text", "lines"), STRUCTURED)
def test_structure_states_its_claims(text: str, lines: list[int]) -> None:
    found = lint("## Router walk\n\n" + text + "\n", rules={"ladder-drift"})
    assert sorted({f.line - 2 for f in found}) == lines, found


def _critic_lines(text: str) -> list[int]:
    """Lines of critic-drift's findings on a critic prompt (a one-fence prompt
    "never states" the rest, which is not what these tests are about)."""
    return [f.line for f in lint(text, reads="critic", rules={"critic-drift"})
            if "never states" not in f.message]


def test_a_critic_threshold_set_in_an_ini_fence_is_checked() -> None:
    text = ("# Efficiency critic\n\n```ini\n[efficiency-critic]\n"
            "widen_threshold = {}   ; GPU-hours, the default of --widen-threshold\n```\n")
    assert _critic_lines(text.format("0.5")) == [5]
    assert _critic_lines(text.format("1.0")) == []


def test_a_verdict_map_in_a_fence_is_checked_rule_by_rule() -> None:
    text = ("# Efficiency critic\n\n```yaml\n# verdict map the critic agent follows\n"
            "unsharded-wide:       REVISE\nunreadable-launch:    {}\n```\n")
    assert _critic_lines(text.format("APPROVE + warning")) == [6]
    assert _critic_lines(text.format("REVISE")) == []


def test_lexicon_patterns_are_spelled_the_same_under_every_hash_seed() -> None:
    """The regex cache is keyed by pattern text: a pattern built from a set in
    hash order would be new on every run and rewrite the cache file each time."""
    script = ("from router import config\nfrom lint import lexicon\n"
              "lx = lexicon.build(config.load())\n"
              "print(lexicon._number_words(lx.data['durations']['numbers']))\n"
              "print(sorted(k.alternation.full.pattern for k in lx._kinds if k.alternation))\n")
    spelled = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              check=True, cwd=ROOT,
                              env={**os.environ, "PYTHONHASHSEED": seed}).stdout
               for seed in ("1", "2", "3")}
    assert len(spelled) == 1
    assert "twenty(?:[- ](?:eight|" in spelled.pop()


def test_a_link_target_is_blank_and_columns_still_point_at_the_text() -> None:
    from lint import document

    doc = document.parse("x.md", "# T\n\n- see [docs](http://x.y/a_(b)) now, `8x` then **4x**\n")
    unit = doc.units[1]
    assert "http" not in unit.text and unit.text.startswith("see [docs]")
    assert unit.position(unit.text.index("now")) == (3, 32)
    assert unit.position(unit.text.index("4x")) == (3, 49)
