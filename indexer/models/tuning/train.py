"""Contrastive training of a sentence encoder on (message, function text) pairs with in-batch negatives.

Each message is scored against every function text of its batch (cosine x SCALE, cross-entropy towards its own
function: sentence-transformers' MultipleNegativesRankingLoss), in batches with no repeats (`batches`), and, with
hard negatives, against each pair's sibling from the same file too (`negatives`).
Validation reports the same in-batch accuracy on held-out pairs, before training and after each epoch.
"""

from __future__ import annotations

import random
import time
from typing import Callable, Sequence

import torch
from spider.indexer.models.embedding import cut_text
from spider.indexer.models.tuning.batches import Pair, batches_without_repeats
from spider.indexer.models.tuning.bert import Bert
from spider.indexer.models.tuning.negatives import false_negative_mask, same_file_negatives, touched_functions
from spider.indexer.models.tuning.settings import TrainSettings

SCALE = 20.0  # sentence-transformers' default for MultipleNegativesRankingLoss
WARMUP_SHARE = 0.1
PROGRESS_SECONDS = 30.0
CHUNK = 8  # texts a forward pass encodes together (`Encoder`)


class Encoder:
    """A Bert and its tokenizer on one device: texts -> unit vectors.

    Texts are encoded in chunks of `chunk`, sorted by length, each padded to its own longest text: the vectors
    are those of one padded batch (padding is masked out), at less cost. Commit messages run from a few tokens to
    hundreds, so one padded batch of 32 spent about three quarters of the message side on padding."""

    def __init__(self, model: Bert, tokenizer, device: torch.device, max_tokens: int, chunk: int = CHUNK) -> None:
        self.model = model.to(device)
        self.device = device
        self.max_tokens = max_tokens
        self.chunk = chunk
        self.pad_id = model.config.get("pad_token_id", 0)
        self.tokenizer = tokenizer
        self.tokenizer.enable_truncation(max_length=max_tokens)
        self.tokenizer.no_padding()

    def __call__(self, texts: Sequence[str]) -> torch.Tensor:
        encodings = [e.ids for e in self.tokenizer.encode_batch([cut_text(t, self.max_tokens) for t in texts])]
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i]))
        parts = []
        for start in range(0, len(order), self.chunk):
            chunk = [encodings[i] for i in order[start:start + self.chunk]]
            width = max(len(ids) for ids in chunk)
            ids = torch.tensor([ids + [self.pad_id] * (width - len(ids)) for ids in chunk], device=self.device)
            mask = torch.tensor([[1] * len(ids) + [0] * (width - len(ids)) for ids in chunk], device=self.device)
            with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.device.type == "cuda"):
                parts.append(self.model(ids, mask).float())
        back = torch.empty(len(order), dtype=torch.long, device=self.device)
        back[torch.tensor(order, device=self.device)] = torch.arange(len(order), device=self.device)
        return torch.cat(parts)[back]


def in_batch_loss(messages: torch.Tensor, functions: torch.Tensor, negatives: torch.Tensor | None = None,
                  masked: list[list[bool]] | None = None) -> tuple[torch.Tensor, int]:
    """The loss of one batch and how many messages scored their own function highest; message i's own function is
    functions[i], every other function and every negative is wrong for it, except the negatives masked[i] marks."""
    scores = messages @ functions.T * SCALE
    if negatives is not None and len(negatives):
        extra = messages @ negatives.T * SCALE
        if masked is not None:
            extra = extra.masked_fill(torch.tensor(masked, device=extra.device), float("-inf"))
        scores = torch.cat([scores, extra], dim=1)
    targets = torch.arange(len(messages), device=scores.device)
    return torch.nn.functional.cross_entropy(scores, targets), int((scores.argmax(1) == targets).sum())


def train_step(encoder: Encoder, optimizer: torch.optim.Optimizer, messages: list[str], texts: list[str],
               negatives: Sequence[str] = (), masked: list[list[bool]] | None = None) -> float:
    """One optimizer step on one batch of pairs (and their hard negatives); its loss."""
    loss, _ = in_batch_loss(encoder(messages), encoder(texts), encoder(negatives) if negatives else None, masked)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return loss.item()


def freeze_lower_layers(model: Bert, frozen: int) -> list[torch.nn.Parameter]:
    """Keep the embeddings and the lowest `frozen` layers at their weights (none if frozen is 0); the parameters
    left to train. Backward then stops at the first trained layer: on a CPU, with 3 of MiniLM's 6 layers
    frozen a step takes about 0.55 of a full one (bench/results/tuning_steps.md)."""
    if frozen:
        for module in (model.embeddings, *model.encoder.layer[:frozen]):
            module.requires_grad_(False)
    return [p for p in model.parameters() if p.requires_grad]


def validation_accuracy(encoder: Encoder, pairs: Sequence[Pair], batches: list[list[int]]) -> float | None:
    """Share of validation messages whose own function scores highest in its batch (None without batches)."""
    if not batches:
        return None
    encoder.model.eval()
    right = total = 0
    with torch.no_grad():
        for batch in batches:
            _, hits = in_batch_loss(encoder([pairs[i].message for i in batch]), encoder([pairs[i].text for i in batch]))
            right += hits
            total += len(batch)
    return right / total


def train(encoder: Encoder, train_pairs: Sequence[Pair], validation_pairs: Sequence[Pair], settings: TrainSettings,
          report: Callable[[str], None]) -> list[dict]:
    """Train encoder.model in place; one row per epoch (epoch 0: before training) with the mean training loss,
    the validation accuracy and the seconds taken."""
    rng = random.Random(settings.seed)
    torch.manual_seed(settings.seed)
    validation_batches = batches_without_repeats(validation_pairs, settings.batch_size, random.Random(settings.seed))
    negatives = (same_file_negatives(train_pairs, random.Random(settings.seed)) if settings.hard_negatives == "same-file"
                 else [None] * len(train_pairs))
    touched = touched_functions(train_pairs)
    epochs = [batches_without_repeats(train_pairs, settings.batch_size, rng) for _ in range(settings.epochs)]
    steps = sum(len(e) for e in epochs)
    if steps == 0:
        raise ValueError("too few training pairs for one batch of two")
    optimizer = torch.optim.AdamW(freeze_lower_layers(encoder.model, settings.frozen_layers), lr=settings.learning_rate,
                                  weight_decay=settings.weight_decay)
    warmup = max(1, int(steps * WARMUP_SHARE))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min((step + 1) / warmup, max(0.0, (steps - step) / max(1, steps - warmup))))
    history = [{"epoch": 0, "validation_accuracy": validation_accuracy(encoder, validation_pairs, validation_batches)}]
    with_negative = sum(n is not None for n in negatives)
    report(f"{len(train_pairs)} training pairs in {steps} steps over {settings.epochs} epochs"
           + (f", {with_negative} with a hard negative from the same file" if with_negative else "")
           + f"; validation accuracy before training {_percent(history[0]['validation_accuracy'])}")
    step = 0
    for epoch, batches in enumerate(epochs, 1):
        encoder.model.train()
        started = last_report = time.monotonic()
        losses = []
        for batch in batches:
            hard = [n for n in (negatives[i] for i in batch) if n is not None]
            pairs = [train_pairs[i] for i in batch]
            losses.append(train_step(encoder, optimizer, [p.message for p in pairs], [p.text for p in pairs],
                                     [n.text for n in hard], false_negative_mask(pairs, hard, touched)))
            schedule.step()
            step += 1
            if time.monotonic() - last_report >= PROGRESS_SECONDS:
                last_report = time.monotonic()
                rate = len(losses) / (last_report - started)
                report(f"epoch {epoch}: step {len(losses)}/{len(batches)}, loss {sum(losses[-50:]) / len(losses[-50:]):.3f}, "
                       f"{rate:.2f} steps/s, about {(steps - step) / rate / 60:.0f} min left")
        accuracy = validation_accuracy(encoder, validation_pairs, validation_batches)
        history.append({"epoch": epoch, "train_loss": round(sum(losses) / len(losses), 4),
                        "validation_accuracy": accuracy, "seconds": round(time.monotonic() - started, 1)})
        report(f"epoch {epoch}: loss {history[-1]['train_loss']}, validation accuracy {_percent(accuracy)} "
               f"({history[-1]['seconds']:.0f} s)")
    return history


def _percent(share: float | None) -> str:
    return "n/a (no validation pairs)" if share is None else f"{share:.1%}"
