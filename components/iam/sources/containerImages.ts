/** containerd on every node pulls images from the account's ECR (the user's own images). */
import type { StatementSource } from "../statementSource";

export const containerImages: StatementSource = {
  sidPrefix: "ContainerImages",
  statements: () => [
    {
      // GetAuthorizationToken has no resource scope.
      Sid: "ContainerImagesPull",
      Effect: "Allow",
      Action: [
        "ecr:GetAuthorizationToken",
        "ecr:BatchCheckLayerAvailability",
        "ecr:BatchGetImage",
        "ecr:GetDownloadUrlForLayer",
      ],
      Resource: "*",
    },
  ],
};
