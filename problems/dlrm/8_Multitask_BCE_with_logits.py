"""
DLRM-Bench 8: multi-task binary cross-entropy with logits and per-task pos_weight.

What: per element, with x = logit, y = label in {0, 1}, p = pos_weight[task]:
    loss = -(p * y * log(sigmoid(x)) + (1 - y) * log(1 - sigmoid(x)))
computed stably as (1 - y) * x + (1 + (p - 1) * y) * (log1p(exp(-|x|)) + max(-x, 0)),
exactly torch.nn.functional.binary_cross_entropy_with_logits(pos_weight=p, reduction='none');
the output is the mean loss of each task over the rows (16 values).
Where in DLRM: the training loss of multi-task ranking models (click, like, share, watch-time
buckets ... each a binary head); pos_weight compensates the rarity of positives per task. A large
column-wise reduction over a wide batch.

Sizes: 1,048,576 rows x 16 tasks; logits ~N(0, 2^2); labels are bool (positive rate 25%), converted
to the logits' dtype inside forward; pos_weight = 1 + 0.5 * task (a buffer, 1.0 ... 8.5).

Signature: inputs (logits fp32[1048576, 16], labels bool[1048576, 16], pos_weight fp32[16]);
output fp32[16].

GPU memory footprint (fp32): logits 67.1 MB + labels 16.8 MB + output 64 B; reference intermediates:
float labels 67.1 MB, element-wise loss 67.1 MB plus about four temporaries of 67.1 MB inside
binary_cross_entropy_with_logits: about 0.45 GB in total (< 4 GB).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

KFORGE_CATEGORY = "recommender"


class Model(nn.Module):
    """Per-task mean BCE-with-logits loss with pos_weight."""

    def __init__(self, num_tasks):
        super(Model, self).__init__()
        self.register_buffer("pos_weight", 1.0 + 0.5 * torch.arange(num_tasks, dtype=torch.float32))

    def forward(self, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        """
        Args:
            logits (torch.Tensor): shape (num_rows, num_tasks).
            labels (torch.Tensor): bool, shape (num_rows, num_tasks).

        Returns:
            torch.Tensor: mean loss per task, shape (num_tasks,).
        """
        targets = labels.to(logits.dtype)
        loss = F.binary_cross_entropy_with_logits(logits, targets, pos_weight=self.pos_weight,
                                                  reduction="none")
        return loss.mean(dim=0)


num_rows = 1048576
num_tasks = 16
positive_rate = 0.25


def get_inputs():
    logits = torch.randn(num_rows, num_tasks) * 2.0
    labels = torch.rand(num_rows, num_tasks) < positive_rate
    return [logits, labels]


def get_init_inputs():
    return [num_tasks]
