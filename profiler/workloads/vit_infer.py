"""ViT-B/16 inference on 224x224 images, bf16 autocast, random weights and images (torchvision's model when
installed, else an identical own definition)."""
import torch

import kforge_workload as kw
import vision_models


def main():
    p = kw.base_parser(__doc__)
    p.add_argument("--batch", type=int, default=256)
    args = p.parse_args()
    dev = kw.device_for(args)
    torch.manual_seed(args.seed)
    model, source = vision_models.vit_b_16()
    batch = 2 if args.smoke else args.batch
    model = model.to(dev).eval()
    images = torch.randn(batch, 3, 224, 224, device=dev)

    @torch.no_grad()
    def step():
        with kw.autocast(dev):
            model(images)

    kw.run("vit-b16-infer", args, step, args.warmup or 3, args.steps or 10,
           {"batch": batch, "image": 224, "model_source": source})


if __name__ == "__main__":
    main()
