"""ResNet-50 training step on 224x224 images: channels-last, bf16 autocast, SGD with momentum, random
weights and images (torchvision's model when installed, else an identical own definition)."""
import torch
import torch.nn.functional as F

import kforge_workload as kw
import vision_models


def main():
    p = kw.base_parser(__doc__)
    p.add_argument("--batch", type=int, default=128)
    args = p.parse_args()
    dev = kw.device_for(args)
    torch.manual_seed(args.seed)
    torch.backends.cudnn.benchmark = True
    model, source = vision_models.resnet50()
    batch, size = (2, 64) if args.smoke else (args.batch, 224)
    model = model.to(dev, memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    images = torch.randn(batch, 3, size, size, device=dev).to(memory_format=torch.channels_last)
    labels = torch.randint(0, 1000, (batch,), device=dev)

    def step():
        with kw.autocast(dev):
            loss = F.cross_entropy(model(images), labels)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    kw.run("resnet50-train", args, step, args.warmup or 5, args.steps or 10,
           {"batch": batch, "image": size, "model_source": source})


if __name__ == "__main__":
    main()
