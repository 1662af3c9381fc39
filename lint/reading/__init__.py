"""Reading ladder prose into propositions.

A unit of prose is split into sentences; each sentence is tagged by the
lexicon, its tokens are grouped into terms ("the 1× GCP rungs" is one term),
and small readers look for the shapes people use: chains, before/after,
first/last, "X-only", "lead with", thresholds, worked examples. Structure is
read too: a numbered list or an ordered table of rungs states an order, and
ordinal sentences ("First … Then … Last …") chain across a paragraph.

Polarity, modality and time are decided per sentence: a negation before the
predicate flips it, "may"/"can" still claim possibility, and a history note
("the old guide said …") or a quoted wrong statement is not a claim at all.
An order reading ("X first", "X then Y") counts only in ladder context, and
not in procedural prose ("deploy the worker to RunPod first").
"""
from __future__ import annotations

import re
from dataclasses import replace

from lint.lexicon import Lexicon
from lint.propositions import Prop
from lint.reading.cues import KEY_WORDS, MAX_SENTENCE
from lint.reading.lanes import LaneReading
from lint.reading.lengths import LengthReading
from lint.reading.order import OrderReading
from lint.reading.provisioning import ProvisioningReading
from lint.reading.scaling import ScalingReading, about_scaling
from lint.reading.sentence import (
    Sentence,
    TermTok,
    blank_quotes,
    orderable,
    split_sentences,
    tag_sentence,
    terms,
)
from lint.reading.widths import WidthReading, bare_width_list


class Reader(OrderReading, ProvisioningReading, LengthReading, WidthReading, ScalingReading,
             LaneReading):
    """Reads one sentence into propositions; each family of readers is a mixin."""

    def read(self) -> list[Prop]:
        if self.s.history or self.s.question or self.s.end - self.s.start > MAX_SENTENCE:
            return []  # an unpunctuated transcript is not a sentence anyone can act on
        self.read_chains()
        self.read_conditional()
        self.read_only_after()
        self.read_position()
        self.read_never_tried()
        self.read_dynamic()
        self.read_family_major()
        self.read_model_major()
        self.read_family_block()
        self.read_after_that()
        self.read_next_on_miss()
        self.read_before_after()
        self.read_first_last()
        self.read_provisioning()
        self.read_lengths()
        self.read_flex_max()
        self.read_min_width()
        self.read_walk_step()
        self.read_same_as()
        self.read_auto()
        self.read_widths()
        self.read_direction()
        self.read_skipped_width()
        self.read_family_widths()
        self.read_scaling()
        self.read_lane_facts()
        self.read_tail_width()
        self.read_runpod_types()
        self.read_pod_order()
        self.read_lane_count()
        self.read_backend_count()
        self.read_family_names()
        if _SKIPPED_BEFORE.search(self.s.text):
            # "SLURM is never skipped before RunPod": SLURM is always tried before it
            self.props = [replace(p, negated=not p.negated) if p.kind == "order" else p
                          for p in self.props]
        return self.props


_SKIPPED_BEFORE = re.compile(r"\bskip(?:ped|s)?\s+(?:\w+\s+)?(?:before|ahead\s+of)\b", re.I)

# ---- context --------------------------------------------------------------------------------

def in_context(lexicon: Lexicon, text: str, heading: str) -> bool:
    return bool(lexicon.ladder_context.search(text) or lexicon.ladder_context.search(heading))


__all__ = ["KEY_WORDS", "MAX_SENTENCE", "Reader", "Sentence", "TermTok", "about_scaling",
           "bare_width_list", "blank_quotes", "in_context", "orderable", "split_sentences",
           "tag_sentence", "terms"]
